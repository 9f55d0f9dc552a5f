package io.idempotency.observation;

import io.idempotency.Answer;
import io.idempotency.observation.IdempotentCallObservationDocumentation.HighCardinalityKeyNames;
import io.idempotency.observation.IdempotentCallObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The observation {@code idempotency.tool.call}, named {@code idempotent <tool>} in traces, with the low
 * cardinality key values {@code idempotency.tool} and {@code idempotency.outcome} (every call has both: a call
 * that ended without an answer has the outcome {@code none}), and, once the call has a key, the high cardinality
 * {@code idempotency.key}.
 */
public class DefaultIdempotentCallObservationConvention implements IdempotentCallObservationConvention {

	/** The observation's name, and so the name of its timer. */
	public static final String NAME = "idempotency.tool.call";

	/** The outcome of a call that ended without an answer. */
	public static final String NO_OUTCOME = "none";

	/** The convention the advice uses where no other is given. */
	public static final DefaultIdempotentCallObservationConvention INSTANCE = new DefaultIdempotentCallObservationConvention();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(IdempotentCallObservationContext context) {
		return "idempotent " + context.getToolName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(IdempotentCallObservationContext context) {
		Answer answer = context.getAnswer();
		return KeyValues.of(LowCardinalityKeyNames.TOOL.withValue(context.getToolName()),
				LowCardinalityKeyNames.OUTCOME.withValue((answer != null) ? answer.kind() : NO_OUTCOME));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(IdempotentCallObservationContext context) {
		return (context.getKey() != null) ? KeyValues.of(HighCardinalityKeyNames.KEY.withValue(context.getKey().value()))
				: KeyValues.empty();
	}

}
