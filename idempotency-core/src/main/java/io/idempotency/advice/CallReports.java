package io.idempotency.advice;

import io.idempotency.IdempotentCallScope;
import io.idempotency.Answer;
import io.idempotency.IdempotentCall;
import io.idempotency.LedgerUnavailableException;
import io.idempotency.IdempotentCallListener;
import java.util.ArrayList;
import java.util.List;

import io.idempotency.ledger.ClaimRequest;
import io.idempotency.observation.DefaultIdempotentCallObservationConvention;
import io.idempotency.observation.IdempotentCallObservationContext;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Observes each call, and tells how it was answered: to the call's observation context (which its convention
 * reads at stop), to the scopes open on the calling thread and to the listeners. A listener that fails is logged
 * and passed over. While a transactional attempt runs, the scopes and listeners are told once it ends; the
 * observation at once.
 */
final class CallReports {

	private static final Logger logger = LoggerFactory.getLogger(CallReports.class);

	private final List<IdempotentCallListener> listeners;

	private final ObservationRegistry observations;

	private final IdempotentCallObservationConvention convention;

	/** The answers held on each thread while a transactional attempt runs: told once it ends. */
	private final ThreadLocal<List<Runnable>> held = new ThreadLocal<>();

	/** @param convention the application's convention for the observation; {@code null} for the default one */
	CallReports(List<IdempotentCallListener> listeners, ObservationRegistry observations,
			IdempotentCallObservationConvention convention) {
		this.listeners = List.copyOf(listeners);
		this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
		this.convention = convention;
	}

	/** The observation of one call of the tool, started; {@code null} where observations are off. */
	Observation observe(ToolDescriptor tool) {
		if (this.observations.isNoop()) {
			return null;
		}
		IdempotentCallObservationContext context = new IdempotentCallObservationContext(tool.name(),
				tool.toolCallName());
		return Observation.createNotStarted(this.convention, DefaultIdempotentCallObservationConvention.INSTANCE,
				() -> context, this.observations).start();
	}

	/** Tells the answer of a call; {@code request} is {@code null} for a call refused before it had a key. */
	void tell(ToolDescriptor tool, ClaimRequest request, Answer answer) {
		tell(tool, request, answer, List.of());
	}

	/**
	 * Holds the answers told on this thread until {@link #release}: for an attempt that may run again.
	 * @return {@code false} if they are held already, by an outer call that releases them
	 */
	boolean hold() {
		if (this.held.get() != null) {
			return false;
		}
		this.held.set(new ArrayList<>());
		return true;
	}

	/** Ends holding: tells the answers held, in order, or drops them (an attempt that runs again). */
	void release(boolean tell) {
		List<Runnable> answers = this.held.get();
		this.held.remove();
		if (tell && answers != null) {
			answers.forEach(Runnable::run);
		}
	}

	/** Tells the answer of a repeat whose details differ from the earlier call's, naming them. */
	void tell(ToolDescriptor tool, ClaimRequest request, Answer answer, List<String> differentDetails) {
		// The call's own observation is told now, while it is the current one: a call nested in a
		// transactional attempt is observed, and stopped, before the attempt's answers are told. An attempt that
		// runs again is told again by its next attempt's answer.
		Observation observation = this.observations.getCurrentObservation();
		if (observation != null && observation.getContext() instanceof IdempotentCallObservationContext context) {
			context.setAnswer(answer);
			context.setKey((request != null) ? request.key() : null);
		}
		List<Runnable> holding = this.held.get();
		if (holding != null) {
			holding.add(() -> tellNow(tool, request, answer, differentDetails));
			return;
		}
		tellNow(tool, request, answer, differentDetails);
	}

	private void tellNow(ToolDescriptor tool, ClaimRequest request, Answer answer, List<String> differentDetails) {
		if (this.listeners.isEmpty() && !IdempotentCallScope.isOpen()) {
			return;
		}
		IdempotentCall call = new IdempotentCall(tool.name(), tool.toolCallName(),
				(request != null) ? request.key() : null, answer, tool.envelope(), differentDetails);
		IdempotentCallScope.tell(call);
		for (IdempotentCallListener listener : this.listeners) {
			try {
				listener.onCall(call);
			}
			catch (RuntimeException ex) {
				logger.atWarn()
					.setCause(ex)
					.addKeyValue("idempotency.tool", call.tool())
					.addKeyValue("idempotency.outcome", answer.kind())
					.log("Idempotent call listener {} failed", listener);
			}
		}
	}

	/** Tells that a call was refused because its claim could not be recorded; the exception to throw. */
	LedgerUnavailableException ledgerUnavailable(ToolDescriptor tool, ClaimRequest request, Exception cause) {
		logger.atWarn()
			.addKeyValue("idempotency.tool", tool.name())
			.addKeyValue("idempotency.key", request.key().value())
			.addKeyValue("idempotency.run", request.runId())
			.addKeyValue("idempotency.outcome", Answer.REFUSED_LEDGER_UNAVAILABLE.kind())
			.log("Tool '{}' was not executed: its claim (key {}) could not be recorded: {}", tool.name(), request.key(),
					String.valueOf(cause));
		tell(tool, request, Answer.REFUSED_LEDGER_UNAVAILABLE);
		return new LedgerUnavailableException(tool.name(), cause);
	}

}
