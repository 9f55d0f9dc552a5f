package io.idempotency.advice;

import io.idempotency.IdempotentCallScope;
import io.idempotency.Answer;
import io.idempotency.IdempotentCall;
import io.idempotency.LedgerUnavailableException;
import io.idempotency.IdempotentCallListener;
import java.util.List;

import io.idempotency.ledger.ClaimRequest;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells how each call was answered: as the observation's {@code outcome} tag, to the scopes open on the
 * calling thread and to the listeners. A listener that fails is logged and passed over.
 */
final class CallReports {

	private static final Log logger = LogFactory.getLog(CallReports.class);

	/** The name of the observation around each call, tagged with the tool and the outcome. */
	static final String OBSERVATION = "idempotency.tool.call";

	private final List<IdempotentCallListener> listeners;

	private final ObservationRegistry observations;

	CallReports(List<IdempotentCallListener> listeners, ObservationRegistry observations) {
		this.listeners = List.copyOf(listeners);
		this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
	}

	ObservationRegistry observations() {
		return this.observations;
	}

	/** Tells the answer of a call; {@code request} is {@code null} for a call refused before it had a key. */
	void tell(ToolDescriptor tool, ClaimRequest request, Answer answer) {
		Observation observation = this.observations.getCurrentObservation();
		if (observation != null && OBSERVATION.equals(observation.getContext().getName())) {
			observation.lowCardinalityKeyValue("outcome", answer.tag());
		}
		if (this.listeners.isEmpty() && !IdempotentCallScope.isOpen()) {
			return;
		}
		IdempotentCall call = new IdempotentCall(tool.name(), tool.toolCallName(),
				(request != null) ? request.key() : null, answer, tool.envelope());
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
