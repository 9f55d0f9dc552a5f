package io.idempotency.reconcile;

import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.advice.IdempotentToolRegistry;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import io.idempotency.OrderTools;
import io.idempotency.OrderTools.Order;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The reconciler's passes on the {@link InMemoryLedger}, whose clock the test moves: no database, so it runs
 * in seconds. The database suites pin leasing and resolving on every database.
 */
class ReconcilerTest {

	private static final Duration STALE_AFTER = Duration.ofMinutes(2);

	private final InMemoryLedger ledger = new InMemoryLedger();

	private AnnotationConfigApplicationContext context;

	private OrderTools tools;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.register(OrderTools.Enabled.class);
		this.context.refresh();
		this.tools = this.context.getBean(OrderTools.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	private Reconciler reconciler(Map<String, Duration> staleAfterByTool, int maxAttempts) {
		return new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class), new JsonMapper(),
				new ReconcilerSettings(STALE_AFTER, staleAfterByTool, 100, Duration.ofMinutes(5), Duration.ofMinutes(1),
						Duration.ofMinutes(4), maxAttempts));
	}

	@Test
	void anUnknownOutcomeIsResolvedBothWaysOnceStaleAndARepeatIsAnsweredFromIt() throws Exception {
		IdempotencyKey happened = timedOut("r1", "pump", true);
		IdempotencyKey didNot = timedOut("r1", "valve", false);
		Reconciler reconciler = reconciler(Map.of(), 10);

		assertThat(reconciler.reconcile().resolved()).as("not stale yet").isZero();
		this.ledger.advance(STALE_AFTER.plusSeconds(1));
		Reconciler.Pass pass = reconciler.reconcile();

		assertThat(pass.succeeded()).isEqualTo(1);
		assertThat(pass.failed()).isEqualTo(1);
		assertThat(row(happened).status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row(didNot).status()).isEqualTo(LedgerStatus.FAILED);
		assertThat(reconciler.reconciledSucceeded()).isEqualTo(1);
		assertThat(reconciler.reconciledFailed()).isEqualTo(1);
		Order replayed = RunContext.call(new Run("r1", "rep-1"),
				() -> this.tools.placeOrderTimingOut("pump", 2, true));
		assertThat(replayed.reference()).isEqualTo(happened.externalReference("o"));
		assertThatExceptionOfType(PreviousAttemptFailedException.class).isThrownBy(() -> RunContext
			.call(new Run("r1", "rep-1"), () -> this.tools.placeOrderTimingOut("valve", 2, false)));
		assertThat(this.tools.executions()).isEqualTo(2);
		assertThat(reconciler.reconcile().resolved()).as("nothing left").isZero();
	}

	@Test
	void aReconcileMethodThatCannotTellIsRetriedAfterABackoffThenHandedToAHuman() throws Exception {
		IdempotencyKey key = unknowable("r1");
		Reconciler reconciler = reconciler(Map.of(), 3);
		this.ledger.advance(STALE_AFTER.plusSeconds(1));

		assertThat(reconciler.reconcile().postponed()).isEqualTo(1);
		assertThat(reconciler.reconcile().postponed()).as("paused for the first backoff").isZero();
		this.ledger.advance(Duration.ofMinutes(1).plusSeconds(1));
		assertThat(reconciler.reconcile().postponed()).isEqualTo(1);
		this.ledger.advance(Duration.ofMinutes(1).plusSeconds(1));
		assertThat(reconciler.reconcile().postponed()).as("the second backoff is doubled").isZero();
		this.ledger.advance(Duration.ofMinutes(1));
		assertThat(reconciler.reconcile().awaitingHuman()).isEqualTo(1);

		this.ledger.advance(Duration.ofDays(30));
		assertThat(reconciler.reconcile().postponed()).as("left alone for the human").isZero();
		assertThat(reconciler.awaitingHuman()).isEqualTo(1);
		assertThat(row(key).status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(row(key).reconcileAttempts()).isEqualTo(3);
		assertThat(this.tools.reconciliations()).isEqualTo(3);
	}

	@Test
	void aToolWithALongerThresholdIsLeftWhileItMayStillRun() throws Exception {
		timedOut("r1", "pump", true);
		Reconciler patient = reconciler(Map.of("place_order_timing_out", Duration.ofHours(1)), 10);

		this.ledger.advance(STALE_AFTER.plusSeconds(1));
		assertThat(patient.reconcile().resolved()).isZero();
		this.ledger.advance(Duration.ofHours(1));
		assertThat(patient.reconcile().succeeded()).isEqualTo(1);
	}

	@Test
	void aSuccessAfterTheReconcilerFoundNoEffectOfTheRunningCallIsWrittenOverThatFailure() throws Exception {
		Reconciler reconciler = reconciler(Map.of(), 10);
		// The instance pauses past the threshold: the reconciler takes the running call and finds no effect yet.
		this.tools.whileExecuting(() -> {
			this.ledger.advance(STALE_AFTER.plusSeconds(1));
			assertThat(reconciler.reconcile().failed()).isEqualTo(1);
		});
		Order placed = RunContext.call(new Run("r1", "rep-1"), () -> this.tools.placeOrder("pump", 2));
		this.tools.whileExecuting(() -> {
		});

		LedgerEntry row = lastRow();
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).contains(placed.reference());
		Order repeat = RunContext.call(new Run("r1", "rep-1"), () -> this.tools.placeOrder("pump", 2));
		assertThat(repeat).isEqualTo(placed);
		assertThat(this.tools.executions()).isEqualTo(1);
	}

	@Test
	void theRowsOfToolsThisApplicationDoesNotHaveAreLeftAlone() {
		IdempotencyKey key = IdempotencyKeys.derive("elsewhere", "{\"item\":\"pump\"}", "r1");
		this.ledger.claim(new ClaimRequest(key, "r1", "rep-1", "elsewhere", "{\"item\":\"pump\"}"));
		this.ledger.advance(STALE_AFTER.plusSeconds(1));

		Reconciler.Pass pass = reconciler(Map.of(), 10).reconcile();

		assertThat(pass.resolved() + pass.postponed() + pass.awaitingHuman()).isZero();
		assertThat(row(key).status()).isEqualTo(LedgerStatus.ATTEMPTING);
		assertThat(row(key).reconcileAttempts()).isZero();
	}

	@Test
	void aRowSettledWhileItWasLeasedKeepsItsOutcome() throws Exception {
		IdempotencyKey key = timedOut("r1", "pump", true);
		this.ledger.advance(STALE_AFTER.plusSeconds(1));
		LedgerEntry leased = this.ledger.leaseStaleOf(Set.of("place_order_timing_out"), STALE_AFTER, 10,
				Duration.ofMinutes(5)).get(0);
		// The lease ends, and another pass resolves the row first.
		this.ledger.advance(Duration.ofMinutes(6));
		assertThat(reconciler(Map.of(), 10).reconcile().succeeded()).isEqualTo(1);

		assertThat(this.ledger.resolveFailed(leased, "late")).isFalse();
		assertThat(this.ledger.postpone(leased, Duration.ofMinutes(1))).isFalse();
		assertThat(row(key).status()).isEqualTo(LedgerStatus.SUCCEEDED);
	}

	private IdempotencyKey timedOut(String runId, String item, boolean takeEffect) throws Exception {
		assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> RunContext
			.call(new Run(runId, "rep-1"), () -> this.tools.placeOrderTimingOut(item, 2, takeEffect)));
		return lastRow().key();
	}

	private IdempotencyKey unknowable(String runId) {
		assertThatExceptionOfType(SocketTimeoutException.class)
			.isThrownBy(() -> RunContext.call(new Run(runId, "rep-1"), () -> this.tools.unknowableOrder("pump")));
		return lastRow().key();
	}

	private LedgerEntry lastRow() {
		return this.ledger.entries().get(this.ledger.entries().size() - 1);
	}

	private LedgerEntry row(IdempotencyKey key) {
		return this.ledger.find(key).orElseThrow();
	}

}
