package io.idempotency.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation around each call of an idempotent tool. A bean of this type replaces
 * {@link DefaultIdempotentCallObservationConvention} (with the starter or {@code @EnableIdempotentTools}; without
 * them, {@code IdempotentToolAdvisor.setObservationConvention}); extend the default one to add to its key values
 * rather than replace them. A {@code GlobalObservationConvention} registered on the {@code ObservationRegistry}
 * applies where no bean does.
 */
public interface IdempotentCallObservationConvention extends ObservationConvention<IdempotentCallObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof IdempotentCallObservationContext;
	}

}
