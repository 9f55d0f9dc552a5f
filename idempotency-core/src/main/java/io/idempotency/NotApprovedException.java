package io.idempotency;

/**
 * A call that a person rejected, or that nobody approved in time: it was not executed, and never will be. The
 * message, written for a model to read, gives the person's reason.
 */
public class NotApprovedException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	private final boolean expired;

	private final String reason;

	/**
	 * @param tool the tool's name
	 * @param expired whether nobody decided in time (else a person rejected it)
	 * @param reason the person's reason, or why it expired
	 */
	public NotApprovedException(String tool, boolean expired, String reason) {
		super(Answer.notApproved(expired, reason));
		this.tool = tool;
		this.expired = expired;
		this.reason = reason;
	}

	public String tool() {
		return this.tool;
	}

	/** Whether nobody decided in time; {@code false} when a person rejected the call. */
	public boolean expired() {
		return this.expired;
	}

	/** The person's reason, or why it expired. */
	public String reason() {
		return this.reason;
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_NOT_APPROVED;
	}

}
