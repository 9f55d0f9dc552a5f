package io.idempotency;

import io.idempotency.key.IdempotencyKey;

/**
 * One call of an idempotent tool and how it was answered, as told to {@link IdempotentCallListener}s.
 *
 * @param tool the tool's name, as in its keys
 * @param toolCallName the name a framework such as Spring AI exposes the tool under: its {@code @Tool}
 * name, else the method's name
 * @param key the call's key, or {@code null} for a call outside any run
 * @param outcome how it was answered
 * @param envelope whether the tool returns a {@link ToolResult}, which tells the model itself
 */
public record IdempotentCall(String tool, String toolCallName, IdempotencyKey key, Outcome outcome, boolean envelope) {

	/** How a call was answered. */
	public enum Outcome {

		/** Claimed and executed; it returned. */
		EXECUTED,

		/** Claimed and executed; it threw, and its effect definitely did not happen. */
		FAILED,

		/** Claimed and executed; it threw, and its effect may have happened (for the reconciler). */
		UNKNOWN,

		/** Answered with the stored result of an earlier call in the run. */
		REPLAYED,

		/** Refused: the earlier call in the run is still running or its outcome is unknown. */
		IN_PROGRESS,

		/** Refused: the earlier call in the run failed. */
		PREVIOUS_ATTEMPT_FAILED,

		/** Refused: another user's call holds the key. */
		CONFLICT,

		/** Refused: called outside any run; nothing was executed. */
		WITHOUT_RUN,

		/**
		 * Called outside any run and executed without deduplication, as configured: its result or error is
		 * the tool's own.
		 */
		EXECUTED_WITHOUT_RUN,

		/** Refused: its arguments cannot be made into a key or stored; nothing was executed. */
		INVALID_ARGUMENTS,

		/** Refused: the call could not be claimed, because the ledger's database failed; nothing was executed. */
		LEDGER_UNAVAILABLE;

		/** The outcome as a metric tag: lower case with underscores. */
		public String tag() {
			return name().toLowerCase(java.util.Locale.ROOT);
		}

	}

	/** The message the model reads for a replay. */
	public static String replayMessage() {
		return Messages.REPLAYED;
	}

}
