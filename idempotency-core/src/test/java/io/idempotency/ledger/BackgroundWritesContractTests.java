package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.testsupport.DatabaseFacts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The ledger's background writes, the outcomes written behind their callers and the replay-count flush, beside
 * a transactional call whose transaction holds its row: neither waits on that row, so neither waits on the
 * other, and no replay count is lost. Run unchanged on every supported database.
 */
abstract class BackgroundWritesContractTests {

	static final String TABLE = "background_writes_test";

	static final String RESULT = "{\"ticketId\":\"T-1001\"}";

	/**
	 * How long a batch or a flush may take here: far above a batch's delay, far below a lock wait that times
	 * out (50 seconds by default on MariaDB).
	 */
	static final Duration BOUND = Duration.ofSeconds(5);

	/** A batch is due once its oldest outcome has waited 50 ms. */
	static final OutcomeWriteBehind QUICK = new OutcomeWriteBehind(100, 100, Duration.ofMillis(50));

	DataSource dataSource;

	JdbcTemplate jdbc;

	private final List<JdbcLedger> ledgers = new ArrayList<>();

	private final ExecutorService background = Executors.newCachedThreadPool();

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
	void dropTable() throws InterruptedException {
		this.background.shutdown();
		this.background.awaitTermination(2, TimeUnit.MINUTES);
		this.ledgers.forEach(JdbcLedger::close);
		LedgerSchema.drop(this.dataSource, TABLE);
	}

	JdbcLedger ledger(OutcomeWriteBehind writeBehind) {
		JdbcLedger ledger = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults(), ReplayCache.off(), writeBehind);
		this.ledgers.add(ledger);
		return ledger;
	}

	static ClaimRequest request(String runId, int n) {
		String arguments = "{\"accountName\":\"Henderson Industrial\",\"n\":" + n + "}";
		return new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, runId), runId, "user-a",
				"open_ticket", arguments);
	}

	String statusInTable(ClaimRequest request) {
		return this.jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE idempotency_key = ?", String.class,
				request.key().value());
	}

	long replayCountInTable(ClaimRequest request) {
		return this.jdbc.queryForObject("SELECT replay_count FROM " + TABLE + " WHERE idempotency_key = ?",
				Long.class, request.key().value());
	}

	/**
	 * A transactional call of the tool running inside its caller's transaction, at read committed: the claim
	 * (whatever it answers) is made in the transaction, which then stays open, with the locks the claim took,
	 * until {@link #commit()}.
	 */
	final class RunningTransaction implements AutoCloseable {

		private final CountDownLatch claimed = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private final Future<Claim> call;

		RunningTransaction(JdbcLedger ledger, ClaimRequest request, BiConsumer<CallLedger, Claim> beforeCommit) {
			TransactionTemplate callers = new TransactionTemplate(new DataSourceTransactionManager(
					BackgroundWritesContractTests.this.dataSource));
			callers.setIsolationLevel(TransactionTemplate.ISOLATION_READ_COMMITTED);
			CallLedger joined = ledger.inCallersTransaction();
			this.call = BackgroundWritesContractTests.this.background.submit(() -> callers.execute((status) -> {
				Claim claim = joined.claim(request);
				this.claimed.countDown();
				try {
					// The tool's effect, running.
					assertThat(this.release.await(2, TimeUnit.MINUTES)).isTrue();
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
				beforeCommit.accept(joined, claim);
				return claim;
			}));
		}

		/** Waits for the claim to be made in the transaction, and answers it. */
		RunningTransaction claimed() throws Exception {
			assertThat(this.claimed.await(30, TimeUnit.SECONDS)).as("claimed in the caller's transaction").isTrue();
			return this;
		}

		Claim commit() throws Exception {
			this.release.countDown();
			return this.call.get(2, TimeUnit.MINUTES);
		}

		@Override
		public void close() {
			this.release.countDown();
		}

	}

	/**
	 * A repeat of a transactional call that still runs is counted (its claim lost the lock wait to the running
	 * call, and the advice answered it in progress); the flush of the replay counts then meets the running call's
	 * uncommitted row, which InnoDB's locking read waits on. Meanwhile another tool's outcome is written behind
	 * its caller within its delay, the flush returns, and once the transactional call commits the repeat's count
	 * is written.
	 */
	@Test
	void anOutcomeIsWrittenBehindWhileTheReplayCountOfARunningTransactionalCallIsFlushed() throws Exception {
		JdbcLedger ledger = ledger(QUICK);
		ClaimRequest transactional = request("r1", 1);
		ClaimRequest other = request("r2", 2);
		try (RunningTransaction running = new RunningTransaction(ledger, transactional,
				(joined, won) -> assertThat(joined.recordSucceeded((Claim.Won) won, RESULT)).isTrue()).claimed()) {
			// As the advice counts a repeat told that the call is in progress.
			ledger.recordReplay(transactional.key());
			Future<Integer> scheduledFlush = this.background.submit(ledger::flushReplayCounts);
			Claim otherClaim = ledger.claim(other);
			assertThat(otherClaim).isInstanceOf(Claim.Won.class);

			assertThat(ledger.recordSucceeded((Claim.Won) otherClaim, RESULT)).isTrue();

			await().atMost(BOUND).until(() -> "succeeded".equals(statusInTable(other)));
			assertThat(scheduledFlush.get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).as("counts written").isZero();
			assertThat(running.commit()).isInstanceOf(Claim.Won.class);
		}
		assertThat(statusInTable(transactional)).isEqualTo("succeeded");
		assertThat(ledger.flushReplayCounts()).isEqualTo(1);
		assertThat(replayCountInTable(transactional)).isEqualTo(1);
		assertThat(replayCountInTable(other)).isZero();
	}

	/**
	 * A repeat made inside a caller's transaction is answered from a settled row and counted; its transaction
	 * goes on, holding what its claim locked (MariaDB's lost insert locks the row it lost to). The flush
	 * neither waits for that transaction nor holds up the outcomes meanwhile, and the count is written after.
	 */
	@Test
	void aRowThatARepeatsTransactionStillHoldsNeitherStallsTheOutcomesNorLosesItsCount() throws Exception {
		JdbcLedger ledger = ledger(QUICK);
		ClaimRequest settled = request("r1", 1);
		ClaimRequest other = request("r2", 2);
		ledger.recordSucceeded((Claim.Won) ledger.claim(settled), RESULT);
		ledger.writePendingOutcomes();
		try (RunningTransaction repeat = new RunningTransaction(ledger, settled, (joined, claim) -> {
		}).claimed()) {
			Future<Integer> scheduledFlush = this.background.submit(ledger::flushReplayCounts);
			ledger.recordSucceeded((Claim.Won) ledger.claim(other), RESULT);

			await().atMost(BOUND).until(() -> "succeeded".equals(statusInTable(other)));
			scheduledFlush.get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
			assertThat(repeat.commit()).isInstanceOf(Claim.Replay.class);
		}
		ledger.flushReplayCounts();
		assertThat(replayCountInTable(settled)).isEqualTo(1);
	}

	/**
	 * A count whose row is not there yet (its claim not committed) or is held is kept for a later flush, and
	 * counted once however many flushes meet it held.
	 */
	@Test
	void aCountKeptThroughSeveralFlushesIsWrittenOnce() throws Exception {
		JdbcLedger ledger = ledger(OutcomeWriteBehind.off());
		ClaimRequest transactional = request("r1", 1);
		try (RunningTransaction running = new RunningTransaction(ledger, transactional,
				(joined, won) -> joined.recordSucceeded((Claim.Won) won, RESULT)).claimed()) {
			ledger.recordReplay(transactional.key());
			ledger.recordReplay(transactional.key());
			assertThat(ledger.flushReplayCounts()).isZero();
			ledger.recordReplay(transactional.key());
			assertThat(ledger.flushReplayCounts()).isZero();
			running.commit();
		}
		assertThat(ledger.flushReplayCounts()).isEqualTo(1);
		assertThat(ledger.flushReplayCounts()).isZero();
		assertThat(replayCountInTable(transactional)).isEqualTo(3);
	}

	/**
	 * Two instances, each writing outcomes behind their callers and flushing replay counts on threads of their
	 * own all the while, over the same rows: no batch and no flush deadlocks or waits for the other to fail,
	 * every outcome is written, and every repeat counted is in the table once the last flush returns. Run many
	 * times.
	 */
	@Test
	void outcomeBatchesAndFlushesOfTheSameRowsNeverDeadlockAndLoseNoCount() throws Exception {
		OutcomeWriteBehind small = new OutcomeWriteBehind(1000, 4, Duration.ofMillis(1));
		JdbcLedger one = ledger(small);
		JdbcLedger two = ledger(small);
		AtomicBoolean flushing = new AtomicBoolean(true);
		List<Future<?>> flushers = new ArrayList<>();
		for (JdbcLedger ledger : List.of(one, two)) {
			flushers.add(this.background.submit(() -> {
				while (flushing.get()) {
					ledger.flushReplayCounts();
				}
				return null;
			}));
		}
		AtomicLong repeats = new AtomicLong();
		int threads = 8;
		int keys = 12;
		int rounds = 15;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				String run = "round-" + round;
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Callable<Void>> callers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					JdbcLedger ledger = (t % 2 == 0) ? one : two;
					int offset = t;
					callers.add(() -> {
						start.await();
						for (int i = 0; i < keys * 2; i++) {
							// Each key claimed by every thread, twice, in an order of the thread's own.
							ClaimRequest call = request(run, (i + offset) % keys);
							Claim claim = ledger.claim(call);
							if (claim instanceof Claim.Won won) {
								ledger.recordSucceeded(won, RESULT);
							}
							else {
								repeats.incrementAndGet();
							}
						}
						return null;
					});
				}
				for (Future<Void> caller : pool.invokeAll(callers)) {
					caller.get(2, TimeUnit.MINUTES);
				}
			}
		}
		finally {
			pool.shutdownNow();
			flushing.set(false);
		}
		for (Future<?> flusher : flushers) {
			flusher.get(2, TimeUnit.MINUTES);
		}
		one.writePendingOutcomes();
		two.writePendingOutcomes();
		one.flushReplayCounts();
		two.flushReplayCounts();

		assertThat(new HashSet<>(this.jdbc.queryForList("SELECT status FROM " + TABLE, String.class)))
			.containsExactly("succeeded");
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Long.class)).isEqualTo(keys * rounds);
		assertThat(this.jdbc.queryForObject("SELECT SUM(replay_count) FROM " + TABLE, Long.class))
			.isEqualTo(repeats.get());
	}

}
