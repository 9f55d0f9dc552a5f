package io.idempotency;

/**
 * A call that needs a person's approval before it is carried out, and waits for it: nothing was executed. Not
 * a failure, and not to be retried: once a person approves it, the same call in the same run executes it. The
 * message is written for a model to read.
 */
public class AwaitingApprovalException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	private final String reason;

	/**
	 * @param tool the tool's name
	 * @param reason why the call needs approval, as the tool said, or {@code null}
	 */
	public AwaitingApprovalException(String tool, String reason) {
		super(Answer.awaitingApproval(reason));
		this.tool = tool;
		this.reason = reason;
	}

	public String tool() {
		return this.tool;
	}

	/** Why the call needs approval, as the tool said, or {@code null}. */
	public String reason() {
		return this.reason;
	}

	@Override
	public Answer answer() {
		return Answer.AWAITING_APPROVAL;
	}

}
