package io.idempotency.advice;

import io.idempotency.IdempotentCallScope;
import io.idempotency.Answer;
import io.idempotency.IdempotentCall;
import io.idempotency.LedgerUnavailableException;
import io.idempotency.IdempotentCallListener;
import java.util.ArrayList;
import java.util.List;

import io.idempotency.ledger.ClaimRequest;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells how each call was answered: as the observation's {@code outcome} tag, to the scopes open on the
 * calling thread and to the listeners. A listener that fails is logged and passed over. While a transactional
 * attempt runs, the scopes and listeners are told once it ends; the observation at once.
 */
final class CallReports {

	private static final Log logger = LogFactory.getLog(CallReports.class);

	/** The name of the observation around each call, tagged with the tool and the outcome. */
	static final String OBSERVATION = "idempotency.tool.call";

	private final List<IdempotentCallListener> listeners;

	private final ObservationRegistry observations;

	/** The answers held on each thread while a transactional attempt runs: told once it ends. */
	private final ThreadLocal<List<Runnable>> held = new ThreadLocal<>();

	CallReports(List<IdempotentCallListener> listeners, ObservationRegistry observations) {
		this.listeners = List.copyOf(listeners);
		this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
	}

	ObservationRegistry observations() {
		return this.observations;
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
		// The call's own observation is tagged now, while it is the current one: a call nested in a
		// transactional attempt is observed, and stopped, before the attempt's answers are told. An attempt that
		// runs again is tagged again by its next attempt's answer.
		Observation observation = this.observations.getCurrentObservation();
		if (observation != null && OBSERVATION.equals(observation.getContext().getName())) {
			observation.lowCardinalityKeyValue("outcome", answer.tag());
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
				logger.warn("Idempotent call listener " + listener + " failed", ex);
			}
		}
	}

	/** Tells that a call was refused because its claim could not be recorded; the exception to throw. */
	LedgerUnavailableException ledgerUnavailable(ToolDescriptor tool, ClaimRequest request, Exception cause) {
		logger.warn("Tool '" + tool.name() + "' was not executed: its claim (key " + request.key() + ") could not be"
				+ " recorded: " + cause);
		tell(tool, request, Answer.REFUSED_LEDGER_UNAVAILABLE);
		return new LedgerUnavailableException(tool.name(), cause);
	}

}
