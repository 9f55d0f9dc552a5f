package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.reconcile.ApprovalDecidedEvent;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.Approvals;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Approval before the effect, run unchanged on every supported database: a call that needs approval is claimed
 * as waiting and wins nothing; a person decides once; an approved call is taken by exactly one claim of its key,
 * however many race for it; a rejected or expired one is refused with the reason.
 */
abstract class ApprovalContractTests {

	static final String TABLE = "approval_test";

	static final String USER = "user-a";

	static final String REASON = "a quote over 1,000 units";

	private static final int THREADS = 8;

	private static final int ROUNDS = 20;

	DataSource dataSource;

	JdbcLedger ledger;

	JdbcTemplate jdbc;

	Approvals approvals;

	final List<ApprovalDecidedEvent> published = new CopyOnWriteArrayList<>();

	abstract DataSource dataSource();

	@BeforeEach
	void createTable() {
		this.dataSource = dataSource();
		LedgerSchema.drop(this.dataSource, TABLE);
		LedgerSchema.create(this.dataSource, TABLE);
		this.ledger = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.approvals = new Approvals(this.ledger.approvals(), Duration.ofHours(1), this.published::add);
	}

	@AfterEach
	void dropTable() {
		if (this.dataSource != null) {
			LedgerSchema.drop(this.dataSource, TABLE);
		}
	}

	static ClaimRequest request(String runId, String arguments) {
		return LedgerContractTests.request(runId, USER, arguments).withApproval(REASON);
	}

	static String arguments(int n) {
		return "{\"customer\":\"Henderson Industrial\",\"quantity\":" + (1000 + n) + "}";
	}

	@Test
	void theFirstCallWaitsForApprovalAndWinsNothing() {
		ClaimRequest request = request("r1", arguments(1));

		Claim first = this.ledger.claim(request);

		assertThat(first).isInstanceOfSatisfying(Claim.AwaitingApproval.class, (awaiting) -> {
			assertThat(awaiting.first()).isTrue();
			assertThat(awaiting.reason()).isEqualTo(REASON);
		});
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + TABLE, String.class)).isEqualTo("awaiting");
		assertThat(this.ledger.inFlight()).as("no call runs, so none beats").isZero();
		assertThat(this.ledger.approvals().requested()).isEqualTo(1);
	}

	@Test
	void everyRepeatWhileItWaitsIsToldItAwaitsApprovalWithTheReason() {
		ClaimRequest request = request("r1", arguments(1));
		this.ledger.claim(request);

		for (int i = 0; i < 3; i++) {
			assertThat(this.ledger.claim(request)).isInstanceOfSatisfying(Claim.AwaitingApproval.class, (awaiting) -> {
				assertThat(awaiting.first()).isFalse();
				assertThat(awaiting.reason()).isEqualTo(REASON);
			});
		}
		assertThat(this.ledger.approvals().requested()).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isOne();
	}

	@Test
	void theListingNamesTheCallItsRunUserArgumentsAndReason() {
		ClaimRequest request = request("r1", arguments(1));
		this.ledger.claim(request);
		this.ledger.claim(LedgerContractTests.request("r1", USER, arguments(2)));

		List<ApprovalRequest> awaiting = this.approvals.awaiting(null, 0, 10);

		assertThat(awaiting).singleElement().satisfies((call) -> {
			assertThat(call.entry().key()).isEqualTo(request.key());
			assertThat(call.entry().runId()).isEqualTo("r1");
			assertThat(call.entry().userId()).isEqualTo(USER);
			assertThat(call.entry().tool()).isEqualTo("open_ticket");
			assertThat(call.entry().arguments()).contains("Henderson Industrial");
			assertThat(call.reason()).isEqualTo(REASON);
			assertThat(call.age().isNegative()).isFalse();
			assertThat(call.isAwaiting()).isTrue();
			assertThat(call.decidedBy()).isNull();
		});
		assertThat(this.approvals.countAwaiting()).isOne();
		assertThat(this.approvals.awaiting("another_tool", 0, 10)).isEmpty();
	}

	@Test
	void anApprovedCallIsTakenByTheNextClaimOfItsKeyAndExecutesOnce() {
		ClaimRequest request = request("r1", arguments(1));
		long row = ((Claim.AwaitingApproval) this.ledger.claim(request)).entry().id();

		ApprovalRequest approved = this.approvals.approve(request.key(), "ops@example.com", "customer confirmed");

		assertThat(approved.entry().status()).isEqualTo(LedgerStatus.APPROVED);
		assertThat(approved.decidedBy()).isEqualTo("ops@example.com");
		assertThat(approved.decisionReason()).isEqualTo("customer confirmed");
		assertThat(approved.decidedAt()).isNotNull();
		Claim.Won won = LedgerContractTests.won(this.ledger.claim(request));
		assertThat(won.rowId()).isEqualTo(row);
		assertThat(this.ledger.claim(request)).as("while it runs").isInstanceOf(Claim.InProgress.class);
		assertThat(this.ledger.recordSucceeded(won, "{\"quote\":\"Q-1\"}")).isTrue();
		assertThat(this.ledger.claim(request)).isInstanceOf(Claim.Replay.class);
		assertThat(this.approvals.find(request.key())).hasValueSatisfying((call) -> {
			assertThat(call.entry().status()).isEqualTo(LedgerStatus.SUCCEEDED);
			assertThat(call.decidedBy()).isEqualTo("ops@example.com");
		});
	}

	@Test
	void aRejectedCallIsRefusedWithThePersonsReasonAndNeverTaken() {
		ClaimRequest request = request("r1", arguments(1));
		this.ledger.claim(request);

		this.approvals.reject(request.key(), "ops@example.com", "the customer's credit is on hold");

		for (int i = 0; i < 2; i++) {
			assertThat(this.ledger.claim(request)).isInstanceOfSatisfying(Claim.NotApproved.class, (refused) -> {
				assertThat(refused.expired()).isFalse();
				assertThat(refused.reason()).isEqualTo("the customer's credit is on hold");
			});
		}
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + TABLE, String.class)).isEqualTo("rejected");
	}

	@Test
	void aCallNobodyDecidedOnInTimeExpiresAndIsRefused() {
		ClaimRequest request = request("r1", arguments(1));
		this.ledger.claim(request);
		Approvals soon = new Approvals(this.ledger.approvals(), Duration.ofNanos(1000), this.published::add);
		awaitOlderThanAMicrosecond();

		List<ApprovalRequest> expired = soon.expireOverdue();

		assertThat(expired).singleElement().satisfies((call) -> {
			assertThat(call.entry().status()).isEqualTo(LedgerStatus.EXPIRED);
			assertThat(call.decidedBy()).isNull();
			assertThat(call.decisionReason()).startsWith("Nobody approved it within");
		});
		assertThat(this.ledger.claim(request)).isInstanceOfSatisfying(Claim.NotApproved.class,
				(refused) -> assertThat(refused.expired()).isTrue());
		assertThat(soon.expired()).isOne();
		assertThat(this.published).singleElement().satisfies((event) -> {
			assertThat(event.decision()).isEqualTo(LedgerStatus.EXPIRED);
			assertThat(event.runId()).isEqualTo("r1");
			assertThat(event.userId()).isEqualTo(USER);
		});
		assertThat(this.approvals.expireOverdue()).as("within the hour").isEmpty();
	}

	@Test
	void eachDecisionIsPublishedWithTheRunToResume() {
		ClaimRequest approvedCall = request("r1", arguments(1));
		ClaimRequest rejectedCall = request("r2", arguments(2));
		this.ledger.claim(approvedCall);
		this.ledger.claim(rejectedCall);

		this.approvals.approve(approvedCall.key(), "ops", "fine");
		this.approvals.reject(rejectedCall.key(), "ops", "too large");

		assertThat(this.published).extracting(ApprovalDecidedEvent::runId, ApprovalDecidedEvent::approved,
				ApprovalDecidedEvent::tool)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("r1", true, "open_ticket"),
					org.assertj.core.groups.Tuple.tuple("r2", false, "open_ticket"));
		assertThat(this.approvals.approved()).isOne();
		assertThat(this.approvals.rejected()).isOne();
	}

	@Test
	void aDecisionIsRefusedAndWritesNothingWhenTheCallDoesNotWait() {
		ClaimRequest waiting = request("r1", arguments(1));
		this.ledger.claim(waiting);
		ClaimRequest ordinary = LedgerContractTests.request("r1", USER, arguments(2));
		this.ledger.claim(ordinary);
		IdempotencyKey unknown = LedgerContractTests.request("r9", USER, arguments(3)).key();

		assertRefused(() -> this.approvals.approve(unknown, "ops", "ok"), ApprovalRefusedException.Reason.UNKNOWN_KEY);
		assertRefused(() -> this.approvals.approve(ordinary.key(), "ops", "ok"),
				ApprovalRefusedException.Reason.NOT_AWAITING_APPROVAL);
		assertRefused(() -> this.approvals.approve(waiting.key(), " ", "ok"), ApprovalRefusedException.Reason.MISSING_REASON);
		assertRefused(() -> this.approvals.reject(waiting.key(), "ops", null), ApprovalRefusedException.Reason.MISSING_REASON);
		assertRefused(() -> this.approvals.approve(waiting.key(), "ops\u0000", "ok"),
				ApprovalRefusedException.Reason.INVALID_REQUEST);
		assertRefused(() -> this.approvals.approve(waiting.key(), "o".repeat(256), "ok"),
				ApprovalRefusedException.Reason.INVALID_REQUEST);
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE idempotency_key = ?", String.class,
				waiting.key().value())).isEqualTo("awaiting");

		this.approvals.reject(waiting.key(), "ops", "no");
		assertRefused(() -> this.approvals.approve(waiting.key(), "other", "yes"),
				ApprovalRefusedException.Reason.ALREADY_DECIDED);
		assertThat(this.approvals.refused(ApprovalRefusedException.Reason.ALREADY_DECIDED)).isOne();
		assertThat(this.published).hasSize(1);
	}

	@Test
	void aCallAwaitingApprovalIsNeverAnsweredToAnotherUserNorTakenByOne() {
		ClaimRequest request = request("r1", arguments(1));
		this.ledger.claim(request);
		ClaimRequest other = new ClaimRequest(request.key(), "r1", "user-b", request.tool(), request.arguments());

		assertThat(this.ledger.claim(other)).isInstanceOf(Claim.HeldByAnotherUser.class);
		this.approvals.approve(request.key(), "ops", "fine");
		assertThat(this.ledger.claim(other)).isInstanceOf(Claim.HeldByAnotherUser.class);
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + TABLE, String.class)).isEqualTo("approved");
	}

	@Test
	void theReconcilerNeverTakesACallThatWaitsOrWasApprovedAndNotYetTaken() {
		ClaimRequest waiting = request("r1", arguments(1));
		ClaimRequest approved = request("r1", arguments(2));
		this.ledger.claim(waiting);
		this.ledger.claim(approved);
		this.approvals.approve(approved.key(), "ops", "fine");
		awaitOlderThanAMicrosecond();

		assertThat(this.ledger.leaseStale(Duration.ofNanos(1000), 10, Duration.ofMinutes(1))).isEmpty();
	}

	@Test
	void ofManyClaimsRacingForAnApprovedCallFromTwoLedgersExactlyOneWins() throws Exception {
		raceForApprovedCalls(this.ledger, new JdbcLedger(this.dataSource, TABLE, Redaction.defaults()));
	}

	@Test
	void ofManyClaimsRacingForAnApprovedCallOfAToolReadFirstFromTwoLedgersExactlyOneWins() throws Exception {
		JdbcLedger other = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		ClaimRequest waiting = request("warm", arguments(-1));
		this.ledger.claim(waiting);
		// The tool's claims have found their row: both ledgers read its calls first, and take approved rows there.
		for (int i = 0; i < RepeatedTools.WINDOW; i++) {
			assertThat(this.ledger.claim(waiting)).isInstanceOf(Claim.AwaitingApproval.class);
			assertThat(other.claim(waiting)).isInstanceOf(Claim.AwaitingApproval.class);
		}
		raceForApprovedCalls(this.ledger, other);
	}

	/**
	 * Claims racing for each approved call from two ledgers, as many at once as there are threads: one wins each
	 * round and executes, every other is answered in progress or replayed, none fails.
	 */
	void raceForApprovedCalls(JdbcLedger first, JdbcLedger other) throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			for (int round = 0; round < ROUNDS; round++) {
				ClaimRequest request = request("r" + round, arguments(round));
				first.claim(request);
				this.approvals.approve(request.key(), "ops", "fine");
				CyclicBarrier start = new CyclicBarrier(THREADS);
				List<Future<Claim>> claims = new ArrayList<>();
				for (int t = 0; t < THREADS; t++) {
					JdbcLedger ledger = (t % 2 == 0) ? first : other;
					claims.add(pool.submit(() -> {
						start.await(30, TimeUnit.SECONDS);
						Claim claim = ledger.claim(request);
						if (claim instanceof Claim.Won won) {
							ledger.recordSucceeded(won, "{}");
						}
						return claim;
					}));
				}
				List<Claim> answered = new ArrayList<>();
				for (Future<Claim> claim : claims) {
					answered.add(claim.get(60, TimeUnit.SECONDS));
				}
				assertThat(answered).as("round %d", round).filteredOn(Claim.Won.class::isInstance).hasSize(1);
				assertThat(answered).as("round %d", round)
					.allMatch((claim) -> claim instanceof Claim.Won || claim instanceof Claim.InProgress
							|| claim instanceof Claim.Replay);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void ofTwoDecisionsAtOnceExactlyOneIsWritten() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			for (int round = 0; round < ROUNDS; round++) {
				ClaimRequest request = request("r" + round, arguments(round));
				this.ledger.claim(request);
				CyclicBarrier start = new CyclicBarrier(THREADS);
				List<Future<Boolean>> decisions = new ArrayList<>();
				for (int t = 0; t < THREADS; t++) {
					boolean approve = t % 2 == 0;
					String who = "person-" + t;
					decisions.add(pool.submit(decided(start,
							() -> approve ? this.approvals.approve(request.key(), who, "yes")
									: this.approvals.reject(request.key(), who, "no"))));
				}
				int written = 0;
				for (Future<Boolean> decision : decisions) {
					written += decision.get(60, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(written).as("round %d", round).isOne();
				ApprovalRequest decided = this.approvals.find(request.key()).orElseThrow();
				assertThat(decided.entry().status()).isIn(LedgerStatus.APPROVED, LedgerStatus.REJECTED);
				assertThat(this.published).filteredOn((event) -> event.key().equals(request.key())).singleElement()
					.satisfies((event) -> assertThat(event.decision()).isEqualTo(decided.entry().status()));
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void ofADecisionAndTheCallsExpiryAtOnceExactlyOneIsWritten() throws Exception {
		Approvals expiring = new Approvals(this.ledger.approvals(), Duration.ofNanos(1000), this.published::add);
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < ROUNDS; round++) {
				ClaimRequest request = request("r" + round, arguments(round));
				this.ledger.claim(request);
				awaitOlderThanAMicrosecond();
				CyclicBarrier start = new CyclicBarrier(2);
				Future<Boolean> approved = pool.submit(decided(start,
						() -> this.approvals.approve(request.key(), "ops", "yes")));
				Future<Boolean> expired = pool.submit(() -> {
					start.await(30, TimeUnit.SECONDS);
					return !expiring.expireOverdue().isEmpty();
				});

				boolean approvedWon = approved.get(60, TimeUnit.SECONDS);
				assertThat(approvedWon ^ expired.get(60, TimeUnit.SECONDS)).as("round %d", round).isTrue();
				assertThat(this.approvals.find(request.key()).orElseThrow().entry().status())
					.isEqualTo(approvedWon ? LedgerStatus.APPROVED : LedgerStatus.EXPIRED);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void retentionDeletesRejectedAndExpiredCallsButNeverOneThatWaits() {
		ClaimRequest waiting = request("r1", arguments(1));
		ClaimRequest rejected = request("r1", arguments(2));
		this.ledger.claim(waiting);
		this.ledger.claim(rejected);
		this.approvals.reject(rejected.key(), "ops", "no");
		awaitOlderThanAMicrosecond();

		this.ledger.purgeSettled(Duration.ofNanos(1000), 100);

		assertThat(this.jdbc.queryForList("SELECT status FROM " + TABLE, String.class)).containsExactly("awaiting");
	}

	@Test
	void aCallRejectedLongAfterItAskedIsKeptForTheRetentionPeriodFromItsDecision() {
		ClaimRequest rejected = request("r1", arguments(1));
		this.ledger.claim(rejected);
		// It asked eight days ago; a person rejects it now.
		this.jdbc.update("UPDATE " + TABLE + " SET started_at = " + LedgerDialect.of(this.dataSource).nowMinusMicros(),
				Duration.ofDays(8).toNanos() / 1000);
		this.approvals.reject(rejected.key(), "ops", "no");

		this.ledger.purgeSettled(Duration.ofDays(7), 100);

		assertThat(this.ledger.claim(rejected)).as("still refused with the reason, not asking anew")
			.isInstanceOf(Claim.NotApproved.class);
	}

	/** A decision, made once the barrier opens: whether it was written, or refused as decided already. */
	private static Callable<Boolean> decided(CyclicBarrier start, Callable<ApprovalRequest> decision) {
		return () -> {
			start.await(30, TimeUnit.SECONDS);
			try {
				decision.call();
				return true;
			}
			catch (ApprovalRefusedException ex) {
				assertThat(ex.reason()).isEqualTo(ApprovalRefusedException.Reason.ALREADY_DECIDED);
				return false;
			}
		};
	}

	private static void assertRefused(Runnable decision, ApprovalRefusedException.Reason reason) {
		assertThatExceptionOfType(ApprovalRefusedException.class).isThrownBy(decision::run)
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(reason));
	}

	/** Until the database clock has moved past every row's claim time by more than a microsecond. */
	private void awaitOlderThanAMicrosecond() {
		org.awaitility.Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE started_at >= "
							+ LedgerDialect.of(this.dataSource).nowMinusMicros(), Integer.class, 2) == 0);
	}

}
