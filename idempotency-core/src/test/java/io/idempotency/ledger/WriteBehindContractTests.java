package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.testsupport.CountingDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Outcomes written behind their callers ({@link OutcomeWriteBehind}), run unchanged on every supported database.
 * The ledgers under test wait an hour for a batch to fill, so that what happens while an outcome waits is seen
 * without a race: an outcome is written when its batch is full, when the queue is full (by its caller), or when
 * the ledger closes.
 */
abstract class WriteBehindContractTests {

	static final String TABLE = "write_behind_test";

	static final String USER = "user-a";

	static final String RESULT = "{\"ticketId\":\"T-1001\"}";

	/** A batch fills at three; nothing is written sooner (the delay is an hour). */
	static final OutcomeWriteBehind BATCH_OF_THREE = new OutcomeWriteBehind(100, 3, Duration.ofHours(1));

	DataSource dataSource;

	JdbcTemplate jdbc;

	private final List<JdbcLedger> ledgers = new ArrayList<>();

	abstract DataSource dataSource();

	abstract DatabaseFacts facts();

	@BeforeEach
	void createTable() {
		this.dataSource = dataSource();
		LedgerSchema.drop(this.dataSource, TABLE);
		LedgerSchema.create(this.dataSource, TABLE);
		this.jdbc = new JdbcTemplate(this.dataSource);
	}

	@AfterEach
	void dropTable() {
		this.ledgers.forEach(JdbcLedger::close);
		LedgerSchema.drop(this.dataSource, TABLE);
	}

	JdbcLedger ledger(DataSource dataSource, OutcomeWriteBehind writeBehind) {
		JdbcLedger ledger = new JdbcLedger(dataSource, TABLE, Redaction.defaults(), ReplayCache.off(), writeBehind);
		this.ledgers.add(ledger);
		return ledger;
	}

	static ClaimRequest request(String runId, String arguments) {
		return request(runId, USER, arguments);
	}

	static ClaimRequest request(String runId, String userId, String arguments) {
		return new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, runId), runId, userId, "open_ticket",
				arguments);
	}

	/** The claim, which must have won: its outcome is recorded with it. */
	static Claim.Won won(Claim claim) {
		return LedgerContractTests.won(claim);
	}

	/** Claims each call, each of which must win, in order. */
	static List<Claim.Won> claimAll(JdbcLedger ledger, List<ClaimRequest> calls) {
		return calls.stream().map((call) -> won(ledger.claim(call))).toList();
	}

	static String arguments(int n) {
		return "{\"accountName\":\"Henderson Industrial\",\"n\":" + n + "}";
	}

	String statusInTable(ClaimRequest request) {
		return this.jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE idempotency_key = ?", String.class,
				request.key().value());
	}

	@Test
	void theCallerIsAnsweredWithoutAStatementAndTheOutcomesAreWrittenInOneBatch() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = ledger(counting, BATCH_OF_THREE);
		List<ClaimRequest> calls = List.of(request("r1", arguments(1)), request("r1", arguments(2)),
				request("r1", arguments(3)));
		List<Claim.Won> won = claimAll(ledger, calls);

		long before = counting.roundTrips();
		assertThat(ledger.recordSucceeded(won.get(0), RESULT)).isTrue();
		assertThat(ledger.recordFailed(won.get(1), "java.lang.IllegalStateException: out of stock")).isTrue();

		assertThat(counting.roundTrips()).isEqualTo(before);
		assertThat(ledger.pendingOutcomes()).isEqualTo(2);
		assertThat(statusInTable(calls.get(0))).isEqualTo("attempting");
		assertThat(statusInTable(calls.get(1))).isEqualTo("attempting");

		ledger.recordUnknown(won.get(2), "java.net.SocketTimeoutException: Read timed out");
		await().until(() -> ledger.pendingOutcomes() == 0);
		assertThat(statusInTable(calls.get(0))).isEqualTo("succeeded");
		assertThat(statusInTable(calls.get(1))).isEqualTo("failed");
		assertThat(statusInTable(calls.get(2))).isEqualTo("unknown");
		assertThat(ledger.find(calls.get(0).key()).orElseThrow().result()).contains("T-1001");
		assertThat(ledger.find(calls.get(0).key()).orElseThrow().finishedAt()).isNotNull();
		assertThat(ledger.find(calls.get(1).key()).orElseThrow().error()).contains("out of stock");
		assertThat(ledger.inFlight()).isZero();
		assertThat(ledger.lateCompletions()).isZero();
	}

	@Test
	void anOutcomeAloneIsWrittenOnceItsDelayHasPassed() {
		JdbcLedger ledger = ledger(this.dataSource, new OutcomeWriteBehind(100, 100, Duration.ofMillis(20)));
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won callClaim = won(ledger.claim(call));

		ledger.recordSucceeded(callClaim, RESULT);

		await().until(() -> "succeeded".equals(statusInTable(call)));
		await().until(() -> ledger.pendingOutcomes() == 0 && ledger.inFlight() == 0);
	}

	@Test
	void aRepeatOnTheSameInstanceIsAnsweredFromTheOutcomeThatWaits() {
		CountingDataSource counting = new CountingDataSource(this.dataSource);
		JdbcLedger ledger = ledger(counting, BATCH_OF_THREE);
		ClaimRequest succeeded = request("r1", arguments(1));
		ClaimRequest failed = request("r1", arguments(2));
		Claim.Won succeededClaim = won(ledger.claim(succeeded));
		Claim.Won failedClaim = won(ledger.claim(failed));
		ledger.recordSucceeded(succeededClaim, RESULT);
		ledger.recordFailed(failedClaim, "java.lang.IllegalStateException: out of stock");
		long before = counting.roundTrips();

		Claim replay = ledger.claim(succeeded);
		Claim previousFailure = ledger.claim(failed);

		assertThat(counting.roundTrips()).isEqualTo(before);
		assertThat(replay).isInstanceOf(Claim.Replay.class);
		assertThat(((Claim.Replay) replay).entry().result()).isEqualTo(RESULT);
		assertThat(previousFailure).isInstanceOf(Claim.PreviousAttemptFailed.class);
		assertThat(((Claim.PreviousAttemptFailed) previousFailure).entry().error()).contains("out of stock");
		assertThat(((Claim.Replay) replay).entry().id()).isEqualTo(this.jdbc.queryForObject("SELECT id FROM " + TABLE
				+ " WHERE idempotency_key = ?", Long.class, succeeded.key().value()));
		// The table's row, as find reads it, is still attempting.
		assertThat(ledger.find(succeeded.key()).orElseThrow().status()).isEqualTo(LedgerStatus.ATTEMPTING);
		// Another user under the same key learns nothing of the outcome, as from the table.
		assertThat(ledger.claim(request("r1", "user-b", arguments(1)))).isInstanceOf(Claim.HeldByAnotherUser.class);
	}

	@Test
	void anUnknownOutcomeThatWaitsIsAnsweredInProgressFromTheTable() {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won callClaim = won(ledger.claim(call));
		ledger.recordUnknown(callClaim, "java.net.SocketTimeoutException: Read timed out");

		Claim repeat = ledger.claim(call);

		assertThat(repeat).isInstanceOf(Claim.InProgress.class);
		assertThat(((Claim.InProgress) repeat).since()).isNotNull();
	}

	/**
	 * A row deleted by hand while its call runs, and its key claimed again here: the first call's outcome, waiting
	 * to be written, answers no repeat of the key (the second call still runs) and is never written to the second
	 * claim's row, which gets the second call's own outcome.
	 */
	@ParameterizedTest(name = "the first call {0}")
	@ValueSource(strings = { "succeeded", "failed" })
	void aWaitingOutcomeOfADeletedRowNeitherAnswersNorWritesTheRowOfTheKeysNextClaimHere(String firstOutcome) {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won first = won(ledger.claim(call));
		this.jdbc.update("DELETE FROM " + TABLE + " WHERE id = ?", first.rowId());
		Claim.Won second = won(ledger.claim(call));
		long secondRow = second.rowId();

		assertThat(LedgerContractTests.record(ledger, first, firstOutcome)).as("queued").isTrue();

		assertThat(ledger.claim(call)).as("a repeat while the second call runs").isInstanceOf(Claim.InProgress.class);
		assertThat(ledger.recordSucceeded(second, RESULT)).isTrue();
		assertThat(ledger.claim(call)).as("a repeat once the second call succeeded").isInstanceOfSatisfying(
				Claim.Replay.class, (replay) -> assertThat(replay.entry().id()).isEqualTo(secondRow));
		ledger.writePendingOutcomes();
		LedgerEntry row = ledger.find(call.key()).orElseThrow();
		assertThat(row.id()).isEqualTo(secondRow);
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).isEqualToIgnoringWhitespace(RESULT);
		assertThat(ledger.lateCompletions()).as("the first call's outcome, whose row is gone").isEqualTo(1);
		assertThat(ledger.lateSuccesses()).isZero();
		assertThat(ledger.inFlight()).isZero();
		assertThat(ledger.pendingOutcomes()).isZero();
	}

	@Test
	void anotherInstanceSeesTheCallInProgressUntilItsOutcomeIsWritten() {
		JdbcLedger here = ledger(this.dataSource, BATCH_OF_THREE);
		JdbcLedger there = ledger(this.dataSource, OutcomeWriteBehind.off());
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won callClaim = won(here.claim(call));
		here.recordSucceeded(callClaim, RESULT);

		assertThat(there.claim(call)).isInstanceOf(Claim.InProgress.class);

		here.close();
		Claim afterClose = there.claim(call);
		assertThat(afterClose).isInstanceOf(Claim.Replay.class);
		assertThat(((Claim.Replay) afterClose).entry().result()).contains("T-1001");
	}

	/**
	 * A shutdown thread may already be interrupted when it closes the ledger: closing still waits for the outcomes
	 * that wait to be written before the heartbeat's connection goes, and keeps the interrupt.
	 */
	@Test
	void closingOnAnInterruptedThreadStillWritesEveryOutcomeThatWaitsAndKeepsTheInterrupt() {
		JdbcLedger ledger = ledger(this.dataSource, new OutcomeWriteBehind(1000, 1, Duration.ofHours(1)));
		List<Claim.Won> calls = new ArrayList<>();
		for (int n = 0; n < 200; n++) {
			calls.add(won(ledger.claim(request("r1", arguments(n)))));
		}
		// Batches of one: all but the first wait when close is called.
		calls.forEach((call) -> ledger.recordSucceeded(call, RESULT));

		Thread.currentThread().interrupt();
		try {
			ledger.close();
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
		}

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status = 'attempting'",
				Integer.class)).as("rows still attempting once close returned").isZero();
		assertThat(ledger.pendingOutcomes()).isZero();
	}

	@Test
	void closingWritesEveryOutcomeThatWaitsAndLaterOnesAreWrittenByTheirCallers() {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest first = request("r1", arguments(1));
		ClaimRequest late = request("r1", arguments(2));
		Claim.Won firstClaim = won(ledger.claim(first));
		Claim.Won lateClaim = won(ledger.claim(late));
		ledger.recordSucceeded(firstClaim, RESULT);

		ledger.close();

		assertThat(statusInTable(first)).isEqualTo("succeeded");
		assertThat(ledger.pendingOutcomes()).isZero();
		assertThat(ledger.recordSucceeded(lateClaim, RESULT)).isTrue();
		assertThat(statusInTable(late)).isEqualTo("succeeded");
		assertThat(ledger.inFlight()).isZero();
	}

	@Test
	void anOutcomeThatFindsTheQueueFullIsWrittenByItsCaller() {
		JdbcLedger ledger = ledger(this.dataSource, new OutcomeWriteBehind(2, 100, Duration.ofHours(1)));
		List<ClaimRequest> calls = List.of(request("r1", arguments(1)), request("r1", arguments(2)),
				request("r1", arguments(3)));
		List<Claim.Won> won = claimAll(ledger, calls);

		won.forEach((claim) -> ledger.recordSucceeded(claim, RESULT));

		assertThat(statusInTable(calls.get(0))).isEqualTo("attempting");
		assertThat(statusInTable(calls.get(1))).isEqualTo("attempting");
		assertThat(statusInTable(calls.get(2))).isEqualTo("succeeded");
		assertThat(ledger.pendingOutcomes()).isEqualTo(2);
		assertThat(ledger.inFlight()).isEqualTo(2);
	}

	@Test
	void aCallWhoseOutcomeWaitsIsBeatenForAsRunningAndNoReconcilerTakesIt() {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won callClaim = won(ledger.claim(call));
		ledger.recordSucceeded(callClaim, RESULT);
		this.jdbc.update("UPDATE " + TABLE + " SET started_at = started_at - INTERVAL '1' HOUR");

		assertThat(ledger.heartbeat()).isEqualTo(1);

		assertThat(ledger.leaseStale(Duration.ofMinutes(1), 10, Duration.ofMinutes(5))).isEmpty();
		ledger.close();
		assertThat(ledger.inFlight()).isZero();
		assertThat(statusInTable(call)).isEqualTo("succeeded");
	}

	@Test
	void aSuccessWaitingBehindItsCallerIsWrittenOverAReconcilersFailureAndALateFailureIsNotWritten() {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest overturned = request("r1", arguments(1));
		ClaimRequest late = request("r1", arguments(2));
		ClaimRequest written = request("r1", arguments(3));
		List<Claim.Won> won = claimAll(ledger, List.of(overturned, late, written));
		ledger.recordSucceeded(won.get(0), RESULT);
		ledger.recordFailed(won.get(1), "java.lang.IllegalStateException: out of stock");
		// Meanwhile a reconciler (or a person) settled the first two.
		this.jdbc.update("UPDATE " + TABLE + " SET status = 'failed', error = 'no effect found' WHERE idempotency_key = ?",
				overturned.key().value());
		this.jdbc.update("UPDATE " + TABLE + " SET status = 'succeeded', error = NULL WHERE idempotency_key = ?",
				late.key().value());

		ledger.recordSucceeded(won.get(2), RESULT);
		await().until(() -> ledger.pendingOutcomes() == 0);

		assertThat(statusInTable(overturned)).isEqualTo("succeeded");
		assertThat(ledger.find(overturned.key()).orElseThrow().result()).contains("T-1001");
		assertThat(statusInTable(late)).isEqualTo("succeeded");
		assertThat(statusInTable(written)).isEqualTo("succeeded");
		assertThat(ledger.lateSuccesses()).isEqualTo(1);
		assertThat(ledger.lateCompletions()).isEqualTo(1);
		assertThat(ledger.inFlight()).isZero();
	}

	@Test
	void aResultTheDatabaseRefusesIsWrittenAsNotStoredAndCostsNoOtherOutcomeItsWrite() {
		String refusedResult = resultTheDatabaseRefuses();
		assumeTrue(refusedResult != null, "this database stores every valid JSON result");
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest refused = request("r1", arguments(1));
		ClaimRequest before = request("r1", arguments(2));
		ClaimRequest after = request("r1", arguments(3));
		List<Claim.Won> won = claimAll(ledger, List.of(before, refused, after));

		ledger.recordSucceeded(won.get(0), RESULT);
		ledger.recordSucceeded(won.get(1), refusedResult);
		ledger.recordFailed(won.get(2), "java.lang.IllegalStateException: out of stock");
		await().until(() -> ledger.pendingOutcomes() == 0);

		assertThat(statusInTable(before)).isEqualTo("succeeded");
		assertThat(statusInTable(after)).isEqualTo("failed");
		LedgerEntry notStored = ledger.find(refused.key()).orElseThrow();
		assertThat(notStored.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(notStored.result()).isNull();
		assertThat(notStored.error()).isEqualTo("The result is not stored: the database refused it");
		assertThat(ledger.inFlight()).isZero();
	}

	@Test
	void anOutcomeTheDatabaseCannotTakeIsLeftToTheReconcilerAndNoLongerBeatenFor() {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won callClaim = won(ledger.claim(call));
		ledger.recordSucceeded(callClaim, RESULT);
		this.jdbc.execute("ALTER TABLE " + TABLE + " RENAME TO " + TABLE + "_away");
		try {
			ledger.writePendingOutcomes();
		}
		finally {
			this.jdbc.execute("ALTER TABLE " + TABLE + "_away RENAME TO " + TABLE);
		}

		assertThat(ledger.pendingOutcomes()).isZero();
		assertThat(ledger.inFlight()).isZero();
		assertThat(ledger.heartbeat()).isZero();
		assertThat(statusInTable(call)).isEqualTo("attempting");
		assertThat(ledger.claim(call)).isInstanceOf(Claim.InProgress.class);
	}

	@Test
	void writingThePendingOutcomesWritesEachNowAndReturnsOnceWritten() {
		JdbcLedger ledger = ledger(this.dataSource, BATCH_OF_THREE);
		ClaimRequest call = request("r1", arguments(1));
		Claim.Won callClaim = won(ledger.claim(call));
		ledger.recordFailed(callClaim, "java.lang.IllegalStateException: out of stock");

		ledger.writePendingOutcomes();

		assertThat(statusInTable(call)).isEqualTo("failed");
		assertThat(ledger.pendingOutcomes()).isZero();
		assertThat(ledger.inFlight()).isZero();
	}

	/**
	 * A result, valid JSON, that this database refuses to store, or {@code null} where it stores every one: on
	 * PostgreSQL, a text holding the character NUL; on MariaDB, a result longer than the largest packet
	 * the server accepts.
	 */
	private String resultTheDatabaseRefuses() {
		return switch (facts().database()) {
			case POSTGRESQL -> "{\"text\":\"nul \\u0000 inside\"}";
			case MARIADB -> {
				long largest = this.jdbc.queryForObject("SELECT @@max_allowed_packet", Long.class);
				yield "{\"text\":\"" + "x".repeat((int) largest + 1) + "\"}";
			}
			default -> null;
		};
	}

	/**
	 * Many callers at once on two instances, both writing behind, over keys each claimed by several, some of them
	 * writing the waiting outcomes themselves: every key is won once, every winner's outcome written, every
	 * loser answered from memory, in progress, or from the table, and no call left in flight. Run many times.
	 */
	@Test
	void manyCallersOnTwoInstancesExecuteEachKeyOnceAndEveryOutcomeIsWritten() throws Exception {
		OutcomeWriteBehind quick = new OutcomeWriteBehind(1000, 16, Duration.ofMillis(2));
		JdbcLedger one = ledger(this.dataSource, quick);
		JdbcLedger two = ledger(this.dataSource, quick);
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 20; round++) {
				int keys = 10;
				CyclicBarrier start = new CyclicBarrier(threads);
				Set<String> won = ConcurrentHashMap.newKeySet();
				AtomicInteger wins = new AtomicInteger();
				String run = "round-" + round;
				List<Callable<Void>> callers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					JdbcLedger ledger = (t % 2 == 0) ? one : two;
					callers.add(() -> {
						start.await();
						for (int n = 0; n < keys; n++) {
							ClaimRequest call = request(run, arguments(n));
							Claim claim = ledger.claim(call);
							if (claim instanceof Claim.Won winner) {
								wins.incrementAndGet();
								won.add(call.key().value());
								ledger.recordSucceeded(winner, RESULT);
							}
							else {
								assertThat(claim).isInstanceOfAny(Claim.Replay.class, Claim.InProgress.class);
							}
							if (n % 3 == 0) {
								// A flush on a caller's thread, while the writer's thread waits or writes.
								ledger.writePendingOutcomes();
							}
						}
						return null;
					});
				}
				for (Future<Void> caller : pool.invokeAll(callers)) {
					caller.get();
				}
				assertThat(wins.get()).isEqualTo(keys);
				assertThat(won).hasSize(keys);
				await().until(() -> one.pendingOutcomes() == 0 && two.pendingOutcomes() == 0);
				assertThat(new HashSet<>(this.jdbc.queryForList("SELECT status FROM " + TABLE + " WHERE run_id = ?",
						String.class, run))).containsExactly("succeeded");
				assertThat(one.inFlight() + two.inFlight()).isZero();
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(one.lateCompletions() + two.lateCompletions()).isZero();
	}

}
