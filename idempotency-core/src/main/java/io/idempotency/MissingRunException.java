package io.idempotency;

/**
 * An idempotent tool was called outside any run. Idempotency is scoped to the run, so the call cannot be
 * deduplicated; it was not executed.
 */
public class MissingRunException extends IllegalStateException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	public MissingRunException(String tool) {
		super("Tool '" + tool + "' was called outside a run, so it was not executed: no runId in its ToolContext,"
				+ " no run bound with RunContext, and no RunSource knew one. Bind the run around the agent's work"
				+ " (RunContext.supply(new Run(runId, userId), ...)) or pass runId in the ToolContext.");
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_WITHOUT_RUN;
	}

}
