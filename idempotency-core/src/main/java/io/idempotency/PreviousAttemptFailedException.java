package io.idempotency;

/**
 * A repeat of a call that already ran in this run and failed: it was not executed again. The message is
 * written for a model to read.
 */
public class PreviousAttemptFailedException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	private final String error;

	public PreviousAttemptFailedException(String tool, String error) {
		super(Answer.previousAttemptFailed(error));
		this.tool = tool;
		this.error = error;
	}

	public String tool() {
		return this.tool;
	}

	/** The earlier attempt's error, as recorded. */
	public String error() {
		return this.error;
	}

	@Override
	public Answer answer() {
		return Answer.PREVIOUS_ATTEMPT_FAILED;
	}

}
