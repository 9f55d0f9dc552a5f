package io.idempotency;

import java.time.Instant;

/**
 * A repeat of a call that is still running, or whose outcome is unknown until it is reconciled. Not a
 * failure: the call was not executed again, and retrying it would not help. The message is written for a
 * model to read.
 */
public class ToolCallInProgressException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	private final transient Instant since;

	public ToolCallInProgressException(String tool, Instant since) {
		super(Answer.inProgress(since));
		this.tool = tool;
		this.since = since;
	}

	public String tool() {
		return this.tool;
	}

	/** When the call started, by the database clock. */
	public Instant since() {
		return this.since;
	}

	@Override
	public Answer answer() {
		return Answer.IN_PROGRESS;
	}

}
