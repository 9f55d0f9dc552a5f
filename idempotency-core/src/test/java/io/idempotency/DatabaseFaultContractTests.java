package io.idempotency;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import java.sql.SQLTransactionRollbackException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.FaultyDataSource.When;
import io.idempotency.testsupport.FaultyDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The database fails at every step of every path: a connection lost before each statement, commit and
 * connection request reaches the server, and after each has taken effect there (its answer lost), swept
 * over the executed call, the transactional call, the replay, the reconciler's pass and retention's purge;
 * and a database that goes away for a while and comes back. Real servers underneath, never a mock.
 *
 * <p>After every fault: the tool never ran without a committed claim; the caller got the right answer or
 * a clear error (a data access or transaction failure with the lost connection as its cause, or the
 * library's own answer); and once the database works again, a repeat and the reconciler bring the call to
 * a settled row that matches what happened, with never a second effect.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DatabaseFaultContractTests {

	private static final Logger logger = LoggerFactory.getLogger(DatabaseFaultContractTests.class);

	static final String LEDGER_TABLE = "tool_audit_faults_test";

	/** Every answer told to listeners, in order. */
	static final List<IdempotentCall> TOLD = new java.util.concurrent.CopyOnWriteArrayList<>();

	private AnnotationConfigApplicationContext context;

	private FaultyDataSource faulty;

	private JdbcTemplate observer;

	private FaultTools tools;

	private JdbcLedger ledger;

	private Reconciler reconciler;

	/** The database, as the test sets it up and looks at it. */
	abstract DataSource dataSource();

	/** What the tests need to know of the database this suite runs on. */
	abstract DatabaseFacts facts();

	/** The pool the application's ledger and tools use, under the faults, on that database. */
	DataSource applicationDataSource(DataSource database) {
		return database;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Tools {

		@Bean
		JdbcLedger ledger(FaultyDataSource faulty) {
			return new JdbcLedger(faulty, LEDGER_TABLE, Redaction.defaults());
		}

		@Bean
		PlatformTransactionManager transactionManager(FaultyDataSource faulty) {
			return new DataSourceTransactionManager(faulty);
		}

		@Bean
		IdempotentCallListener told() {
			return TOLD::add;
		}

		@Bean
		FaultTools faultTools(FaultyDataSource faulty, DataSource observer) {
			return new FaultTools(faulty, observer, LEDGER_TABLE);
		}

	}

	@BeforeEach
	void start() {
		if (this.context == null) {
			DataSource dataSource = dataSource();
			LedgerSchema.drop(dataSource, LEDGER_TABLE);
			LedgerSchema.create(dataSource, LEDGER_TABLE);
			this.observer = new JdbcTemplate(dataSource);
			this.observer.execute("DROP TABLE IF EXISTS " + FaultTools.EFFECTS);
			this.observer.execute("CREATE TABLE " + FaultTools.EFFECTS + " (id " + facts().identityColumn()
					+ ", reference VARCHAR(40) NOT NULL, item VARCHAR(40) NOT NULL)");
			this.faulty = new FaultyDataSource(applicationDataSource(dataSource));
			this.context = new AnnotationConfigApplicationContext();
			this.context.registerBean(FaultyDataSource.class, () -> this.faulty);
			// Shared for the whole test run: the context must not close it.
			this.context.registerBean("observer", DataSource.class, () -> new DelegatingDataSource(dataSource));
			this.context.register(Tools.class);
			this.context.refresh();
			this.tools = this.context.getBean(FaultTools.class);
			this.ledger = this.context.getBean(JdbcLedger.class);
			// Stale at once, a short lease (a lease whose answer was lost must run out within the test), and
			// a short back-off for a reconcile method whose own database call failed.
			this.reconciler = new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class),
					new JsonMapper(), new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMillis(300),
							Duration.ofMillis(1), Duration.ofMillis(1), 10));
		}
		this.faulty.heal();
		this.tools.afterEffect(() -> {
		});
		this.observer.update("DELETE FROM " + FaultTools.EFFECTS);
		this.observer.update("DELETE FROM " + LEDGER_TABLE);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void aFaultAtAnyStepOfAnExecutedCallNeverExecutesItTwiceAndEndsSettled() {
		int trials = sweep("executed", () -> this.tools.placeOrder("widget"), (run) -> {
			IdempotencyKey key = key("place_order", run);
			settleAfterTheFault(run, () -> this.tools.placeOrder("widget"), key);
		});
		logger.info("faults.executed database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(10);
	}

	@Test
	void aFaultAtAnyStepOfATransactionalCallCommitsClaimEffectAndOutcomeTogetherOrNothing() {
		int trials = sweep("transactional", () -> this.tools.placeOrderInTransaction("widget"), (run) -> {
			IdempotencyKey key = key("place_order_in_transaction", run);
			// Right after the fault: all of it committed or none of it, never a claim without its effect.
			List<LedgerEntry> row = this.ledger.find(key).stream().toList();
			assertThat(effects(key)).as("effects of %s", key).isEqualTo(row.isEmpty() ? 0 : 1);
			row.forEach((entry) -> assertThat(entry.status()).isEqualTo(LedgerStatus.SUCCEEDED));
			// A repeat answers: executed once if nothing was committed, else replayed.
			assertThat(inRun(run, () -> this.tools.placeOrderInTransaction("widget")))
				.isEqualTo(key.externalReference("o"));
			assertThat(effects(key)).isEqualTo(1);
			assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		});
		logger.info("faults.transactional database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(6);
	}

	@Test
	void aFaultAtAnyStepOfAReplayNeverExecutesAgain() {
		int trials = sweepReplays();
		logger.info("faults.replay database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(2);
	}

	private int sweepReplays() {
		int trials = 0;
		for (When when : When.values()) {
			for (int step = 1;; step++) {
				String run = "replay-" + when + "-" + step;
				String reference = inRun(run, () -> this.tools.placeOrder("widget"));
				IdempotencyKey key = key("place_order", run);
				this.faulty.failAt(step, when);
				Outcome repeat = attempt(run, () -> this.tools.placeOrder("widget"));
				boolean injected = this.faulty.steps() >= step;
				this.faulty.heal();
				if (!injected) {
					break;
				}
				trials++;
				repeat.assertRightAnswerOrClearError(reference);
				assertThat(inRun(run, () -> this.tools.placeOrder("widget"))).isEqualTo(reference);
				assertThat(effects(key)).isEqualTo(1);
			}
		}
		assertThat(this.tools.violations()).isEmpty();
		return trials;
	}

	@Test
	void aFaultAtAnyStepOfAReconcilePassLeavesTheRowForALaterPassAndNeverResolvesItWrongly() {
		int trials = 0;
		for (When when : When.values()) {
			for (int step = 1;; step++) {
				String run = "reconcile-" + when + "-" + step;
				IdempotencyKey happened = crashedCall(run, "took-effect", true);
				IdempotencyKey didNot = crashedCall(run, "did-not", false);
				this.faulty.failAt(step, when);
				Outcome pass = attempt(run, this.reconciler::reconcile);
				boolean injected = this.faulty.steps() >= step;
				this.faulty.heal();
				pass.assertRightAnswerOrClearError(null);
				settleByTheReconciler(happened);
				settleByTheReconciler(didNot);
				assertThat(this.ledger.find(happened).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
				assertThat(this.ledger.find(happened).orElseThrow().result()).contains(happened.externalReference("o"));
				assertThat(this.ledger.find(didNot).orElseThrow().status()).isEqualTo(LedgerStatus.FAILED);
				assertThat(effects(happened)).isEqualTo(1);
				assertThat(effects(didNot)).isZero();
				if (!injected) {
					break;
				}
				trials++;
			}
		}
		logger.info("faults.reconcile database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(4);
	}

	@Test
	void aFaultAtAnyStepOfAPurgeNeverDeletesAnUnsettledRow() {
		int trials = 0;
		for (When when : When.values()) {
			for (int step = 1;; step++) {
				this.observer.update("DELETE FROM " + LEDGER_TABLE);
				List<IdempotencyKey> settled = new ArrayList<>();
				for (int i = 0; i < 5; i++) {
					String run = "purge-" + when + "-" + step + "-" + i;
					inRun(run, () -> this.tools.placeOrder("widget"));
					settled.add(key("place_order", run));
				}
				IdempotencyKey unsettled = crashedCall("purge-" + when + "-" + step, "running", true);
				this.faulty.failAt(step, when);
				Outcome purge = attempt("purge", () -> this.ledger.purgeSettled(Duration.ZERO, 2));
				boolean injected = this.faulty.steps() >= step;
				this.faulty.heal();
				purge.assertRightAnswerOrClearError(null);
				assertThat(this.ledger.find(unsettled)).isPresent();
				this.ledger.purgeSettled(Duration.ZERO, 2);
				assertThat(this.ledger.find(unsettled).orElseThrow().status()).isEqualTo(LedgerStatus.ATTEMPTING);
				settled.forEach((key) -> assertThat(this.ledger.find(key)).isEmpty());
				if (!injected) {
					break;
				}
				trials++;
			}
		}
		logger.info("faults.purge database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(4);
	}

	@Test
	void aClaimThatLosesDeadlocksSeveralTimesInARowIsMadeAgainUntilItWins() {
		// Under load (MariaDB, concurrent outcomes, transactional tools and retention) a claim can lose to the
		// same lock holder several times before that holder commits.
		this.faulty.deadlock("INSERT", 4);
		String reference = inRun("deadlock-4", () -> this.tools.placeOrder("widget"));
		assertThat(reference).isEqualTo(key("place_order", "deadlock-4").externalReference("o"));
		assertThat(effects(key("place_order", "deadlock-4"))).isEqualTo(1);
		assertThat(this.tools.violations()).isEmpty();
	}

	@Test
	void anOutcomeWhoseWriteLosesADeadlockIsWrittenAgainAndTheCallRunsOnce() {
		// On Galera, an outcome written on one node while another node's commit touched the row fails its
		// certification, reported as a deadlock; on one server, it can lose to a reconciler's or retention's locks.
		this.faulty.deadlockOnce("SET status = ?, result");
		String reference = inRun("outcome-deadlock-1", () -> this.tools.placeOrder("widget"));
		IdempotencyKey key = key("place_order", "outcome-deadlock-1");
		assertThat(reference).isEqualTo(key.externalReference("o"));
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(inRun("outcome-deadlock-1", () -> this.tools.placeOrder("widget"))).isEqualTo(reference);
		assertThat(effects(key)).isEqualTo(1);
		assertThat(this.tools.violations()).isEmpty();
	}

	@Test
	void aClaimWhoseCommitLosesADeadlockInsideACallersTransactionIsMadeAgainAndTheCallRunsOnce() {
		// Inside the caller's transaction the claim commits in a transaction of the ledger's own; on Galera, its
		// commit fails certification when another node's commit overtook it, reported as a deadlock.
		TransactionTemplate callers = new TransactionTemplate(this.context.getBean(PlatformTransactionManager.class));
		this.faulty.deadlockOnce("commit");
		String reference = callers.execute((status) -> inRun("commit-deadlock", () -> this.tools.placeOrder("widget")));
		IdempotencyKey key = key("place_order", "commit-deadlock");
		assertThat(reference).isEqualTo(key.externalReference("o"));
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		String again = callers.execute((status) -> inRun("commit-deadlock", () -> this.tools.placeOrder("widget")));
		assertThat(again).isEqualTo(reference);
		assertThat(effects(key)).isEqualTo(1);
		assertThat(this.tools.violations()).isEmpty();
	}

	@Test
	void anOutcomeWhoseWriteLosesDeadlocksSeveralTimesInARowIsWrittenOnce() {
		this.faulty.deadlock("SET status = ?, result", 5);
		String reference = inRun("outcome-deadlock-5", () -> this.tools.placeOrder("widget"));
		IdempotencyKey key = key("place_order", "outcome-deadlock-5");
		assertThat(reference).isEqualTo(key.externalReference("o"));
		LedgerEntry entry = this.ledger.find(key).orElseThrow();
		assertThat(entry.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(entry.result()).contains(reference);
		assertThat(effects(key)).isEqualTo(1);
		assertThat(this.tools.violations()).isEmpty();
	}

	@Test
	void aTransactionalCallAnsweredInProgressAfterLosingEveryLockConflictIsCountedAsAReplay() {
		this.ledger.flushReplayCounts();
		long before = this.ledger.replayStatistics(Duration.ofHours(1)).replays();
		this.faulty.deadlock("INSERT", Integer.MAX_VALUE);
		assertThatThrownBy(() -> inRun("deadlock-tx", () -> this.tools.placeOrderInTransaction("widget")))
			.isInstanceOf(ToolCallInProgressException.class);
		this.faulty.heal();
		// The count is written to the row of the key: the running call's, here made afterwards.
		inRun("deadlock-tx", () -> this.tools.placeOrderInTransaction("widget"));
		this.ledger.flushReplayCounts();
		assertThat(this.ledger.replayStatistics(Duration.ofHours(1)).replays()).isEqualTo(before + 1);
		assertThat(effects(key("place_order_in_transaction", "deadlock-tx"))).isEqualTo(1);
	}

	@Test
	void aClaimThatNeverStopsLosingDeadlocksRunsNothing() {
		this.faulty.deadlock("INSERT", Integer.MAX_VALUE);
		assertThatThrownBy(() -> inRun("deadlock-always", () -> this.tools.placeOrder("widget")))
			.isInstanceOf(LedgerUnavailableException.class);
		this.faulty.heal();
		assertThat(effects(key("place_order", "deadlock-always"))).isZero();
		assertThat(this.ledger.find(key("place_order", "deadlock-always"))).isEmpty();
	}

	@Test
	void aRepeatWhoseClaimNeverStopsLosingLockConflictsIsAnsweredFromTheRowItLostTo() {
		String reference = inRun("deadlock-repeat", () -> this.tools.placeOrder("widget"));
		this.faulty.deadlock("INSERT", Integer.MAX_VALUE);
		assertThat(inRun("deadlock-repeat", () -> this.tools.placeOrder("widget"))).isEqualTo(reference);
		this.faulty.heal();
		assertThat(effects(key("place_order", "deadlock-repeat"))).isEqualTo(1);
		assertThat(this.tools.violations()).isEmpty();
	}

	@Test
	void aCallWhoseClaimLosesLockConflictsToARunningCallIsToldItIsInProgress() {
		IdempotencyKey running = crashedCall("deadlock-running", "widget", false);
		this.faulty.deadlock("INSERT", Integer.MAX_VALUE);
		assertThatThrownBy(() -> inRun("deadlock-running", () -> this.tools.placeOrder("widget")))
			.isInstanceOf(ToolCallInProgressException.class);
		this.faulty.heal();
		assertThat(effects(running)).isZero();
		assertThat(this.ledger.find(running).orElseThrow().status()).isEqualTo(LedgerStatus.ATTEMPTING);
	}

	@Test
	void aClaimThatLosesADeadlockIsMadeAgainAndTheCallRunsOnce() {
		// The claim statement: PostgreSQL's reads and inserts in one statement; the others insert.
		this.faulty.deadlockOnce("INSERT");
		String reference = inRun("deadlock-1", () -> this.tools.placeOrder("widget"));
		assertThat(reference).isEqualTo(key("place_order", "deadlock-1").externalReference("o"));
		assertThat(effects(key("place_order", "deadlock-1"))).isEqualTo(1);
		assertThat(this.ledger.find(key("place_order", "deadlock-1")).orElseThrow().status())
			.isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(inRun("deadlock-1", () -> this.tools.placeOrder("widget"))).isEqualTo(reference);
		assertThat(effects(key("place_order", "deadlock-1"))).isEqualTo(1);
		assertThat(this.tools.violations()).isEmpty();
	}

	@Test
	void aSerializationFailureAtAnyStatementOfTheLedgersIsRunAgainAndTheCallRunsOnce() {
		int trials = 0;
		for (int step = 1;; step++) {
			String run = "serial-executed-" + step;
			IdempotencyKey key = key("place_order", run);
			this.faulty.serializationFailureAt(step);
			Outcome first = attempt(run, () -> this.tools.placeOrder("widget"));
			boolean reached = this.faulty.steps() >= step;
			boolean injected = this.faulty.serializationFailed();
			boolean toolsOwn = injected && isToolsOwnEffect(this.faulty.trace(), step);
			this.faulty.heal();
			if (toolsOwn) {
				// The tool's own statement failed: its own failure, settled as the tool's failures are.
				assertThat(first.failure()).as("step %s", step).isNotNull()
					.isNotInstanceOf(LedgerUnavailableException.class)
					.hasRootCauseInstanceOf(SQLTransactionRollbackException.class);
				settleByTheReconciler(key);
				assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.FAILED);
				assertThat(attempt(run, () -> this.tools.placeOrder("widget")).failure())
					.isInstanceOf(PreviousAttemptFailedException.class);
				assertThat(effects(key)).isZero();
			}
			else {
				assertThat(first.failure()).as("step %s of %s", step, this.faulty.trace()).isNull();
				assertThat(first.value()).isEqualTo(key.externalReference("o"));
				assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
				assertThat(inRun(run, () -> this.tools.placeOrder("widget"))).isEqualTo(key.externalReference("o"));
				assertThat(effects(key)).isEqualTo(1);
			}
			if (!reached) {
				break;
			}
			trials += injected ? 1 : 0;
		}
		assertThat(this.tools.violations()).isEmpty();
		logger.info("faults.serialization.executed database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(3);
	}

	@Test
	void aSerializationFailureAtAnyStatementOfATransactionalCallRunsItsWholeTransactionAgain() {
		int trials = 0;
		for (int step = 1;; step++) {
			String run = "serial-tx-" + step;
			IdempotencyKey key = key("place_order_in_transaction", run);
			TOLD.clear();
			this.faulty.serializationFailureAt(step);
			Outcome first = attempt(run, () -> this.tools.placeOrderInTransaction("widget"));
			assertThat(TOLD).as("told once, for the attempt that committed (step %s)", step)
				.extracting(IdempotentCall::answer)
				.containsExactly(Answer.EXECUTED);
			boolean reached = this.faulty.steps() >= step;
			boolean injected = this.faulty.serializationFailed();
			this.faulty.heal();
			assertThat(first.failure()).as("step %s", step).isNull();
			assertThat(first.value()).isEqualTo(key.externalReference("o"));
			assertThat(effects(key)).isEqualTo(1);
			assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
			assertThat(inRun(run, () -> this.tools.placeOrderInTransaction("widget"))).isEqualTo(key.externalReference("o"));
			assertThat(effects(key)).isEqualTo(1);
			if (!reached) {
				break;
			}
			trials += injected ? 1 : 0;
		}
		logger.info("faults.serialization.transactional database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(3);
	}

	@Test
	void aSerializationFailureAtAnyStatementOfAReplayIsRunAgainAndAnswersFromTheRow() {
		int trials = 0;
		for (int step = 1;; step++) {
			String run = "serial-replay-" + step;
			String reference = inRun(run, () -> this.tools.placeOrder("widget"));
			this.faulty.serializationFailureAt(step);
			Outcome repeat = attempt(run, () -> this.tools.placeOrder("widget"));
			boolean reached = this.faulty.steps() >= step;
			boolean injected = this.faulty.serializationFailed();
			this.faulty.heal();
			assertThat(repeat.failure()).as("step %s", step).isNull();
			assertThat(repeat.value()).isEqualTo(reference);
			assertThat(effects(key("place_order", run))).isEqualTo(1);
			if (!reached) {
				break;
			}
			trials += injected ? 1 : 0;
		}
		logger.info("faults.serialization.replay database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(1);
	}

	@Test
	void aSerializationFailureAtAnyStatementOfAReconcilePassNeverFailsThePassNorResolvesARowWrongly() {
		int trials = 0;
		for (int step = 1;; step++) {
			String run = "serial-reconcile-" + step;
			IdempotencyKey happened = crashedCall(run, "took-effect", true);
			IdempotencyKey didNot = crashedCall(run, "did-not", false);
			this.faulty.serializationFailureAt(step);
			Outcome pass = attempt(run, this.reconciler::reconcile);
			boolean reached = this.faulty.steps() >= step;
			boolean injected = this.faulty.serializationFailed();
			this.faulty.heal();
			assertThat(pass.failure()).as("step %s", step).isNull();
			settleByTheReconciler(happened);
			settleByTheReconciler(didNot);
			assertThat(this.ledger.find(happened).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
			assertThat(this.ledger.find(didNot).orElseThrow().status()).isEqualTo(LedgerStatus.FAILED);
			assertThat(effects(happened)).isEqualTo(1);
			assertThat(effects(didNot)).isZero();
			if (!reached) {
				break;
			}
			trials += injected ? 1 : 0;
		}
		logger.info("faults.serialization.reconcile database={} trials={}", getClass().getSimpleName(), trials);
		assertThat(trials).isGreaterThanOrEqualTo(2);
	}

	@Test
	void aClaimThatKeepsFailingToSerializeRunsNothingAndIsRefusedAsTheLedgerUnavailable() {
		this.faulty.serializationFailure("INSERT", Integer.MAX_VALUE);
		assertThatThrownBy(() -> inRun("serial-always", () -> this.tools.placeOrder("widget")))
			.isInstanceOf(LedgerUnavailableException.class);
		assertThatThrownBy(() -> inRun("serial-always", () -> this.tools.placeOrderInTransaction("widget")))
			.as("a transactional claim that keeps conflicting, as one that keeps losing lock conflicts")
			.isInstanceOf(ToolCallInProgressException.class);
		this.faulty.heal();
		assertThat(effects(key("place_order", "serial-always"))).isZero();
		assertThat(effects(key("place_order_in_transaction", "serial-always"))).isZero();
		assertThat(this.ledger.find(key("place_order", "serial-always"))).isEmpty();
		assertThat(this.ledger.find(key("place_order_in_transaction", "serial-always"))).isEmpty();
	}

	@Test
	void anOutcomeWriteThatFailsToSerializeIsWrittenAgainAndOneThatKeepsFailingIsLeftToTheReconciler() {
		this.faulty.serializationFailure("SET status", 2);
		assertThat(inRun("serial-outcome-1", () -> this.tools.placeOrder("widget")))
			.isEqualTo(key("place_order", "serial-outcome-1").externalReference("o"));
		assertThat(this.ledger.find(key("place_order", "serial-outcome-1")).orElseThrow().status())
			.isEqualTo(LedgerStatus.SUCCEEDED);

		this.faulty.serializationFailure("SET status", Integer.MAX_VALUE);
		IdempotencyKey key = key("place_order", "serial-outcome-2");
		assertThat(inRun("serial-outcome-2", () -> this.tools.placeOrder("widget"))).isEqualTo(key.externalReference("o"));
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.ATTEMPTING);
		this.faulty.heal();
		settleByTheReconciler(key);
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(inRun("serial-outcome-2", () -> this.tools.placeOrder("widget"))).isEqualTo(key.externalReference("o"));
		assertThat(effects(key)).isEqualTo(1);
	}

	/** Whether the step is the tool's own effect: its insert, or the commit of its transaction. */
	private static boolean isToolsOwnEffect(List<String> trace, int step) {
		String what = trace.get(step - 1);
		return what.contains(FaultTools.EFFECTS)
				|| (what.equals("commit") && step >= 2 && trace.get(step - 2).contains(FaultTools.EFFECTS));
	}

	@Test
	void aDatabaseThatGoesAwayAndComesBackLosesNothingAndRunsNothingTwice() {
		// A call whose effect is done when the database goes away: its outcome cannot be recorded.
		this.tools.afterEffect(this.faulty::goAway);
		String inFlight = inRun("away-1", () -> this.tools.placeOrder("widget"));
		this.tools.afterEffect(() -> {
		});
		assertThat(inFlight).isEqualTo(key("place_order", "away-1").externalReference("o"));
		// While it is away: every call, repeat, pass and purge fails clearly, and nothing executes.
		attempt("away-1", () -> this.tools.placeOrder("widget")).assertRightAnswerOrClearError(inFlight);
		Outcome refused = attempt("away-2", () -> this.tools.placeOrder("widget"));
		refused.assertFailed();
		assertThat(refused.failure()).isInstanceOf(LedgerUnavailableException.class)
			.hasMessage("Not done: this action could not be recorded before it was carried out, so it was not carried"
					+ " out. Nothing happened. It can be tried again later.");
		Outcome refusedInTransaction = attempt("away-3", () -> this.tools.placeOrderInTransaction("widget"));
		refusedInTransaction.assertFailed();
		assertThat(refusedInTransaction.failure()).isInstanceOf(LedgerUnavailableException.class);
		attempt("away", this.reconciler::reconcile).assertFailed();
		attempt("away", () -> this.ledger.purgeSettled(Duration.ZERO, 10)).assertFailed();
		assertThat(effects(key("place_order", "away-2"))).isZero();
		assertThat(effects(key("place_order_in_transaction", "away-3"))).isZero();

		this.faulty.comeBack();

		assertThat(inRun("away-2", () -> this.tools.placeOrder("widget")))
			.isEqualTo(key("place_order", "away-2").externalReference("o"));
		assertThat(inRun("away-3", () -> this.tools.placeOrderInTransaction("widget")))
			.isEqualTo(key("place_order_in_transaction", "away-3").externalReference("o"));
		settleByTheReconciler(key("place_order", "away-1"));
		assertThat(this.ledger.find(key("place_order", "away-1")).orElseThrow().status())
			.isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(inRun("away-1", () -> this.tools.placeOrder("widget"))).isEqualTo(inFlight);
		assertThat(this.observer.queryForObject("SELECT COUNT(*) FROM " + FaultTools.EFFECTS, Integer.class)).isEqualTo(3);
		assertThat(this.tools.violations()).isEmpty();
	}

	/**
	 * Runs a fresh call with the connection lost at step 1, 2, ... before and after, until a step number
	 * past the call's last step, and checks each with {@code check}.
	 */
	private int sweep(String path, Supplier<String> call, java.util.function.Consumer<String> check) {
		int trials = 0;
		for (When when : When.values()) {
			for (int step = 1;; step++) {
				String run = path + "-" + when + "-" + step;
				this.faulty.failAt(step, when);
				Outcome first = attempt(run, call::get);
				boolean injected = this.faulty.steps() >= step;
				this.faulty.heal();
				first.assertRightAnswerOrClearError(null);
				check.accept(run);
				if (!injected) {
					break;
				}
				trials++;
			}
		}
		assertThat(this.tools.violations()).isEmpty();
		return trials;
	}

	/** A repeat, the reconciler and a repeat again: one settled row that says what happened. */
	private void settleAfterTheFault(String run, Supplier<String> call, IdempotencyKey key) {
		attempt(run, call::get).assertRightAnswerOrClearError(key.externalReference("o"));
		settleByTheReconciler(key);
		LedgerEntry row = this.ledger.find(key).orElseThrow();
		int effects = effects(key);
		assertThat(effects).as("effects of %s", key).isLessThanOrEqualTo(1);
		assertThat(row.status()).isEqualTo((effects == 1) ? LedgerStatus.SUCCEEDED : LedgerStatus.FAILED);
		Outcome last = attempt(run, call::get);
		if (effects == 1) {
			assertThat(last.value()).isEqualTo(key.externalReference("o"));
		}
		else {
			assertThat(last.failure()).isInstanceOf(PreviousAttemptFailedException.class);
		}
		assertThat(effects(key)).isEqualTo(effects);
	}

	private void settleByTheReconciler(IdempotencyKey key) {
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			this.reconciler.reconcile();
			return this.ledger.find(key).map((row) -> !row.status().isUnsettled()).orElse(true);
		});
	}

	/**
	 * A call of place_order whose instance died an hour after its claim, with or without its effect: stale for
	 * the reconciler at once. A claim of this very moment might not be, on a fast machine, for a pass that
	 * starts within the reconciler's threshold of it (a millisecond here), and that pass would lease nothing.
	 */
	private IdempotencyKey crashedCall(String run, String item, boolean tookEffect) {
		String arguments = "{\"item\":\"" + item + "\"}";
		IdempotencyKey key = IdempotencyKeys.derive("place_order", arguments, run);
		new JdbcLedger(this.observer.getDataSource(), LEDGER_TABLE, Redaction.defaults())
			.claim(new ClaimRequest(key, run, "rep-1", "place_order", arguments));
		this.observer.update("UPDATE " + LEDGER_TABLE + " SET started_at = started_at - INTERVAL '1' HOUR"
				+ " WHERE idempotency_key = ?", key.value());
		if (tookEffect) {
			this.observer.update("INSERT INTO " + FaultTools.EFFECTS + " (reference, item) VALUES (?, ?)",
					key.externalReference("o"), item);
		}
		return key;
	}

	private static IdempotencyKey key(String tool, String run) {
		return IdempotencyKeys.derive(tool, "{\"item\":\"widget\"}", run);
	}

	private int effects(IdempotencyKey key) {
		return this.observer.queryForObject("SELECT COUNT(*) FROM " + FaultTools.EFFECTS + " WHERE reference = ?",
				Integer.class, key.externalReference("o"));
	}

	private static <T> T inRun(String run, Supplier<T> work) {
		return RunContext.supply(new Run(run, "rep-1"), work);
	}

	private static Outcome attempt(String run, Supplier<?> work) {
		try {
			return new Outcome(inRun(run, work), null);
		}
		catch (RuntimeException | Error ex) {
			return new Outcome(null, ex);
		}
	}

	/** What a caller got: a value or a failure. */
	record Outcome(Object value, Throwable failure) {

		/**
		 * The expected value (any value, when null), or a clear error: a data access or transaction failure
		 * caused by the lost connection, or the library's answer that the call is in progress.
		 */
		void assertRightAnswerOrClearError(Object expected) {
			if (this.failure == null) {
				if (expected != null) {
					assertThat(this.value).isEqualTo(expected);
				}
				return;
			}
			if (this.failure instanceof ToolCallInProgressException) {
				return;
			}
			assertFailed();
		}

		void assertFailed() {
			assertThat(this.failure).as("the caller's answer (it returned %s)", this.value).isNotNull();
			assertThat(this.failure).isInstanceOfAny(LedgerUnavailableException.class, DataAccessException.class,
					TransactionException.class);
			assertThat(this.failure).hasRootCauseInstanceOf(java.sql.SQLTransientConnectionException.class);
			assertThat(this.failure.getMessage()).isNotBlank();
		}

	}

}
