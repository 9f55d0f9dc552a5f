package io.idempotency;

/**
 * An idempotent tool was called outside any run. Idempotency is scoped to the run, so the call cannot be
 * deduplicated; it was not executed. The message is written for a model to read; what the application should
 * change (bind the run) is logged where the call is refused.
 */
public class MissingRunException extends IllegalStateException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	public MissingRunException(String tool) {
		super(Answer.REFUSED_WITHOUT_RUN.message());
		this.tool = tool;
	}

	/** The tool that was called. */
	public String tool() {
		return this.tool;
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_WITHOUT_RUN;
	}

}
