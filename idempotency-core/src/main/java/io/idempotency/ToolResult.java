package io.idempotency;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * A tool's answer in a form that tells the model what happened: executed now, replayed from earlier in
 * the run, already failed, or still in progress. An {@link IdempotentTool} that returns
 * {@code ToolResult<T>} returns {@link #of(Object)}; the library answers repeats with the other kinds,
 * instead of exceptions.
 *
 * @param ok whether {@link #data()} holds the action's result
 * @param data the result, when {@code ok}
 * @param replayed whether the action was performed earlier in this run and not again now
 * @param kind what happened
 * @param message a sentence for the model, for every kind but {@link Kind#EXECUTED}
 * @param since when an action in progress started, by the database clock
 * @param <T> the result type
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolResult<T>(boolean ok, T data, boolean replayed, Kind kind, String message, Instant since) {

	/** What happened to the action. */
	public enum Kind {

		/** Performed now. */
		EXECUTED("executed"),

		/** Performed earlier in this run; the earlier result is returned. */
		REPLAYED("replayed"),

		/** Attempted earlier in this run, and it failed; not attempted again. */
		PREVIOUS_ATTEMPT_FAILED("previous_attempt_failed"),

		/** Started earlier in this run, and not finished, or its outcome is being checked. */
		IN_PROGRESS("in_progress"),

		/**
		 * Performed earlier in this run, but its result could not be stored, so it cannot be returned again;
		 * {@code data} is empty and the action was not performed again.
		 */
		REPLAYED_WITHOUT_RESULT("replayed_without_result");

		private final String value;

		Kind(String value) {
			this.value = value;
		}

		@JsonValue
		public String value() {
			return this.value;
		}

	}

	/** The answer of an action performed now. */
	public static <T> ToolResult<T> of(T data) {
		return new ToolResult<>(true, data, false, Kind.EXECUTED, null, null);
	}

	static <T> ToolResult<T> replayed(T data) {
		return new ToolResult<>(true, data, true, Kind.REPLAYED, Messages.REPLAYED, null);
	}

	static <T> ToolResult<T> replayedWithoutResult() {
		return new ToolResult<>(true, null, true, Kind.REPLAYED_WITHOUT_RESULT, Messages.REPLAYED_WITHOUT_RESULT, null);
	}

	static <T> ToolResult<T> previousAttemptFailed(String error) {
		return new ToolResult<>(false, null, true, Kind.PREVIOUS_ATTEMPT_FAILED, Messages.previousAttemptFailed(error),
				null);
	}

	static <T> ToolResult<T> inProgress(Instant since) {
		return new ToolResult<>(false, null, true, Kind.IN_PROGRESS, Messages.inProgress(since), since);
	}

}
