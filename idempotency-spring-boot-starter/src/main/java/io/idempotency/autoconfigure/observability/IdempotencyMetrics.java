package io.idempotency.autoconfigure.observability;

import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallListener;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.ledger.JdbcLedger;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Micrometer meters: {@code idempotency.calls} counted by {@code tool} and {@code outcome} (executed,
 * failed, unknown, replayed, in_progress, previous_attempt_failed, conflict, without_run, executed_without_run,
 * invalid_arguments, ledger_unavailable), and, from this
 * instance, {@code idempotency.late.completions}, {@code idempotency.late.successes}, {@code idempotency.reconciled} (by {@code outcome}) and
 * {@code idempotency.reconcile.awaiting.human}.
 */
public class IdempotencyMetrics implements IdempotentCallListener {

	private final MeterRegistry registry;

	public IdempotencyMetrics(MeterRegistry registry, JdbcLedger ledger, ObjectProvider<Reconciler> reconciler) {
		this.registry = registry;
		FunctionCounter.builder("idempotency.late.completions", ledger, JdbcLedger::lateCompletions)
			.description("Calls that completed after their row had been resolved by the reconciler; not written")
			.register(registry);
		FunctionCounter.builder("idempotency.late.successes", ledger, JdbcLedger::lateSuccesses)
			.description("Calls that succeeded after a reconciler had resolved them failed while they ran;"
					+ " written over that failure")
			.register(registry);
		Reconciler found = reconciler.getIfAvailable();
		if (found != null) {
			FunctionCounter.builder("idempotency.reconciled", found, Reconciler::reconciledSucceeded)
				.tag("outcome", "succeeded")
				.description("Calls the reconciler resolved")
				.register(registry);
			FunctionCounter.builder("idempotency.reconciled", found, Reconciler::reconciledFailed)
				.tag("outcome", "failed")
				.description("Calls the reconciler resolved")
				.register(registry);
			FunctionCounter.builder("idempotency.reconcile.awaiting.human", found, Reconciler::awaitingHuman)
				.description("Calls the reconciler could not resolve and handed to a human")
				.register(registry);
		}
	}

	@Override
	public void onCall(IdempotentCall call) {
		Counter.builder("idempotency.calls")
			.description("Calls of idempotent tools, by how they were answered")
			.tag("tool", call.tool())
			.tag("outcome", call.answer().tag())
			.register(this.registry)
			.increment();
	}

}
