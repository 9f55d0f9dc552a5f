package io.idempotency.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation around each call of an idempotent tool, and its key names. With Micrometer's
 * {@code DefaultMeterObservationHandler} (which Spring Boot registers), it is the timer
 * {@code idempotency.tool.call} tagged with its low cardinality keys and {@code error}.
 */
public enum IdempotentCallObservationDocumentation implements ObservationDocumentation {

	/** One call of an idempotent tool, from the search for its run to its answer. */
	TOOL_CALL {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultIdempotentCallObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeyNames.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return HighCardinalityKeyNames.values();
		}

	};

	/** Key values of every call, on its metrics and its spans. */
	public enum LowCardinalityKeyNames implements KeyName {

		/** The tool's name, as in its keys: {@code open_ticket}. */
		TOOL {
			@Override
			public String asString() {
				return "idempotency.tool";
			}
		},

		/**
		 * How the call was answered: its {@code Answer}'s kind, as the model reads it ({@code executed},
		 * {@code replayed}, {@code in_progress}, {@code refused_conflict}, ...), or {@code none} for a call
		 * that ended without an answer.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "idempotency.outcome";
			}
		}

	}

	/** Key values of a call known once it has a key: on its spans, never on its metrics. */
	public enum HighCardinalityKeyNames implements KeyName {

		/** The call's key, as in the ledger's {@code idempotency_key} column: absent before the call has one. */
		KEY {
			@Override
			public String asString() {
				return "idempotency.key";
			}
		}

	}

}
