package io.idempotency.autoconfigure.observability;

import java.time.Duration;
import java.util.Locale;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.SettlementRefusedException;
import io.idempotency.reconcile.Settlements;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The meters of the ledger and the reconciler, beside the timer {@code idempotency.tool.call} that the
 * observation of each call makes (see {@code IdempotentCallObservationDocumentation}): from the whole ledger,
 * the gauge {@code idempotency.ledger.awaiting.human}, read at most once per {@code cacheFor}, once at a time, within
 * the timeout; from this
 * instance, {@code idempotency.late.completions}, {@code idempotency.late.successes},
 * {@code idempotency.outcomes.pending},
 * {@code idempotency.reconciled} (by {@code idempotency.status}: {@code succeeded}, {@code failed}),
 * {@code idempotency.reconcile.human.handoffs}, {@code idempotency.settlements} (by
 * {@code idempotency.settlement}: {@code succeeded}, {@code failed}, {@code retry}) and
 * {@code idempotency.settlements.refused} (by {@code idempotency.reason}: the refusal's reason, lower case).
 * Where there are approvals: the gauge {@code idempotency.ledger.awaiting.approval} (the whole ledger, read as the
 * other gauge), and from this instance {@code idempotency.approvals.requested}, {@code idempotency.approvals} (by
 * {@code idempotency.decision}: {@code approved}, {@code rejected}, {@code expired}) and
 * {@code idempotency.approvals.refused} (by {@code idempotency.reason}).
 */
public class IdempotencyMetrics implements MeterBinder {

	private final JdbcLedger ledger;

	private final ObjectProvider<Reconciler> reconciler;

	private final LedgerCount awaitingHuman;

	private final LedgerCount awaitingApproval;

	private final ObjectProvider<Settlements> settlements;

	private final ObjectProvider<Approvals> approvals;

	/**
	 * @param humanAfterAttempts the reconciler's {@code maxAttempts}: an unsettled row tried that many times waits
	 * for a human
	 * @param cacheFor how long the gauge of rows waiting for a human reuses its last reading of the ledger
	 * @param timeout how long a reading of the ledger may take (a whole number of seconds, at least one); the gauge
	 * is not a number while it does not answer within it
	 */
	public IdempotencyMetrics(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler, int humanAfterAttempts,
			Duration cacheFor, Duration timeout) {
		this(ledger, reconciler, humanAfterAttempts, cacheFor, timeout, null, null);
	}

	/**
	 * @param humanAfterAttempts the reconciler's {@code maxAttempts}: an unsettled row tried that many times waits
	 * for a human
	 * @param cacheFor how long the gauge of rows waiting for a human reuses its last reading of the ledger
	 * @param timeout how long a reading of the ledger may take (a whole number of seconds, at least one); the gauge
	 * is not a number while it does not answer within it
	 * @param settlements the operators' settlements, counted where there is a bean of them
	 */
	public IdempotencyMetrics(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler, int humanAfterAttempts,
			Duration cacheFor, Duration timeout, ObjectProvider<Settlements> settlements) {
		this(ledger, reconciler, humanAfterAttempts, cacheFor, timeout, settlements, null);
	}

	/**
	 * @param humanAfterAttempts the reconciler's {@code maxAttempts}: an unsettled row tried that many times waits
	 * for a human
	 * @param cacheFor how long the gauges of rows waiting for a human, or for approval, reuse their last reading
	 * @param timeout how long a reading of the ledger may take (a whole number of seconds, at least one); a gauge
	 * is not a number while it does not answer within it
	 * @param settlements the operators' settlements, counted where there is a bean of them
	 * @param approvals the decisions on approvals, counted where there is a bean of them
	 */
	public IdempotencyMetrics(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler, int humanAfterAttempts,
			Duration cacheFor, Duration timeout, ObjectProvider<Settlements> settlements,
			ObjectProvider<Approvals> approvals) {
		this.ledger = ledger;
		this.reconciler = reconciler;
		this.awaitingHuman = LedgerCount.awaitingHuman(ledger, humanAfterAttempts, cacheFor, timeout);
		this.awaitingApproval = LedgerCount.awaitingApproval(ledger, cacheFor, timeout);
		this.settlements = settlements;
		this.approvals = approvals;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("idempotency.ledger.awaiting.human", this.awaitingHuman, LedgerCount::count)
			.description("Calls in the ledger, of every instance, that the reconciler could not resolve and that wait"
					+ " for a human")
			.strongReference(true)
			.register(registry);
		FunctionCounter.builder("idempotency.late.completions", this.ledger, JdbcLedger::lateCompletions)
			.description("Calls that completed after their row had been resolved by the reconciler; not written")
			.register(registry);
		Gauge.builder("idempotency.outcomes.pending", this.ledger, JdbcLedger::pendingOutcomes)
			.description("Outcomes of this instance's calls that wait to be written behind their callers (0 where"
					+ " write-behind is off)")
			.register(registry);
		FunctionCounter.builder("idempotency.late.successes", this.ledger, JdbcLedger::lateSuccesses)
			.description("Calls that succeeded after a reconciler had resolved them failed while they ran;"
					+ " written over that failure")
			.register(registry);
		Reconciler found = this.reconciler.getIfAvailable();
		if (found != null) {
			FunctionCounter.builder("idempotency.reconciled", found, Reconciler::reconciledSucceeded)
				.tag("idempotency.status", "succeeded")
				.description("Calls the reconciler of this instance resolved, by the status it wrote")
				.register(registry);
			FunctionCounter.builder("idempotency.reconciled", found, Reconciler::reconciledFailed)
				.tag("idempotency.status", "failed")
				.description("Calls the reconciler of this instance resolved, by the status it wrote")
				.register(registry);
			FunctionCounter.builder("idempotency.reconcile.human.handoffs", found, Reconciler::awaitingHuman)
				.description("Calls the reconciler of this instance could not resolve and handed to a human")
				.register(registry);
		}
		Settlements settled = (this.settlements != null) ? this.settlements.getIfAvailable() : null;
		if (settled != null) {
			bindSettlements(registry, settled);
		}
		Approvals decided = (this.approvals != null) ? this.approvals.getIfAvailable() : null;
		if (decided != null) {
			bindApprovals(registry, decided);
		}
	}

	private void bindApprovals(MeterRegistry registry, Approvals approvals) {
		Gauge.builder("idempotency.ledger.awaiting.approval", this.awaitingApproval, LedgerCount::count)
			.description("Calls in the ledger, of every instance, that wait for a person's approval")
			.strongReference(true)
			.register(registry);
		FunctionCounter.builder("idempotency.approvals.requested", this.ledger, (ledger) -> ledger.approvals().requested())
			.description("Calls this instance claimed as waiting for a person's approval")
			.register(registry);
		String decidedDescription = "Calls that waited for approval decided on this instance, by the decision:"
				+ " approved, rejected, or expired (nobody decided in time)";
		FunctionCounter.builder("idempotency.approvals", approvals, Approvals::approved)
			.tag("idempotency.decision", "approved")
			.description(decidedDescription)
			.register(registry);
		FunctionCounter.builder("idempotency.approvals", approvals, Approvals::rejected)
			.tag("idempotency.decision", "rejected")
			.description(decidedDescription)
			.register(registry);
		FunctionCounter.builder("idempotency.approvals", approvals, Approvals::expired)
			.tag("idempotency.decision", "expired")
			.description(decidedDescription)
			.register(registry);
		for (ApprovalRefusedException.Reason reason : ApprovalRefusedException.Reason.values()) {
			FunctionCounter.builder("idempotency.approvals.refused", approvals, (a) -> a.refused(reason))
				.tag("idempotency.reason", reason.name().toLowerCase(Locale.ROOT))
				.description("Decisions on approvals refused on this instance, nothing written, by the reason")
				.register(registry);
		}
	}

	private static void bindSettlements(MeterRegistry registry, Settlements settlements) {
		String settledDescription = "Calls settled by hand on this instance, by how: succeeded, failed, or sent back"
				+ " to the reconciler (retry)";
		FunctionCounter.builder("idempotency.settlements", settlements, Settlements::settledSucceeded)
			.tag("idempotency.settlement", "succeeded")
			.description(settledDescription)
			.register(registry);
		FunctionCounter.builder("idempotency.settlements", settlements, Settlements::settledFailed)
			.tag("idempotency.settlement", "failed")
			.description(settledDescription)
			.register(registry);
		FunctionCounter.builder("idempotency.settlements", settlements, Settlements::sentBack)
			.tag("idempotency.settlement", "retry")
			.description(settledDescription)
			.register(registry);
		for (SettlementRefusedException.Reason reason : SettlementRefusedException.Reason.values()) {
			FunctionCounter.builder("idempotency.settlements.refused", settlements, (s) -> s.refused(reason))
				.tag("idempotency.reason", reason.name().toLowerCase(Locale.ROOT))
				.description("Settlements by hand refused on this instance, nothing written, by the reason")
				.register(registry);
		}
	}

}
