package io.idempotency;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A tool's answer in a form that tells the model what happened: executed now, replayed from earlier in
 * the run, already failed, still in progress, or waiting for a person's approval. An {@link IdempotentTool} that returns
 * {@code ToolResult<T>} returns {@link #of(Object)}; the library answers repeats with the other kinds,
 * instead of exceptions.
 *
 * @param ok whether {@link #data()} holds the action's result
 * @param data the result, when {@code ok}
 * @param replayed whether the action was performed earlier in this run and not again now
 * @param kind what happened
 * @param message a sentence for the model, for every kind but {@link Answer#EXECUTED}
 * @param since when an action in progress started, by the database clock
 * @param <T> the result type
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolResult<T>(boolean ok, T data, boolean replayed, Answer kind, String message, Instant since) {

	/** The answer of an action performed now. */
	public static <T> ToolResult<T> of(T data) {
		return new ToolResult<>(true, data, false, Answer.EXECUTED, null, null);
	}

	/** The answer to a repeat of an action done earlier in the run: its stored result. */
	public static <T> ToolResult<T> replayed(T data) {
		return new ToolResult<>(true, data, true, Answer.REPLAYED, Answer.REPLAYED.message(), null);
	}

	/**
	 * The answer to a repeat of an action done earlier in the run with other details: its stored result, and
	 * the message that names the details not applied.
	 */
	public static <T> ToolResult<T> replayedWithDifferentDetails(T data, List<String> differentDetails) {
		return new ToolResult<>(true, data, true, Answer.REPLAYED_DIFFERENT_DETAILS,
				Answer.differentDetailsReplayed(differentDetails), null);
	}

	/** The answer to a repeat of an action done earlier in the run whose result was not kept. */
	public static <T> ToolResult<T> replayedWithoutResult() {
		return new ToolResult<>(true, null, true, Answer.REPLAYED_WITHOUT_RESULT, Answer.REPLAYED_WITHOUT_RESULT.message(),
				null);
	}

	/** The answer to a repeat of an action that failed earlier in the run, with that failure's error. */
	public static <T> ToolResult<T> previousAttemptFailed(String error) {
		return new ToolResult<>(false, null, true, Answer.PREVIOUS_ATTEMPT_FAILED, Answer.previousAttemptFailed(error),
				null);
	}

	/** The answer to a repeat of an action still running, or whose outcome is unknown, since it started. */
	public static <T> ToolResult<T> inProgress(Instant since) {
		return new ToolResult<>(false, null, true, Answer.IN_PROGRESS, Answer.inProgress(since), since);
	}

	/**
	 * The answer to a call that waits for a person's approval: nothing was done yet.
	 * @param reason why it needs approval, as the tool said, or {@code null}
	 */
	public static <T> ToolResult<T> awaitingApproval(String reason) {
		return new ToolResult<>(false, null, false, Answer.AWAITING_APPROVAL, Answer.awaitingApproval(reason), null);
	}

	/**
	 * The answer to a call that a person rejected, or that nobody approved in time: not done, and not to be.
	 * @param expired whether nobody decided in time
	 * @param reason the person's reason, or why it expired
	 */
	public static <T> ToolResult<T> notApproved(boolean expired, String reason) {
		return new ToolResult<>(false, null, false, Answer.REFUSED_NOT_APPROVED, Answer.notApproved(expired, reason),
				null);
	}

}
