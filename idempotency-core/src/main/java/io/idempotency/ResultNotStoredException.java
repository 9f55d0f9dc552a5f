package io.idempotency;

/**
 * A repeat of a call that succeeded earlier in this run, whose result could not be stored (it could not be
 * written as JSON, or held a character the database cannot store) or can no longer be read back as the
 * tool's result type (the type changed since it was stored; the cause says how): the action was not
 * performed again, and its result cannot be returned. Tools that return {@link ToolResult} get
 * {@link Answer#REPLAYED_WITHOUT_RESULT} instead. The message is written for a model to read.
 */
public class ResultNotStoredException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	public ResultNotStoredException(String tool) {
		super(Answer.REPLAYED_WITHOUT_RESULT.message());
		this.tool = tool;
	}

	public String tool() {
		return this.tool;
	}

	@Override
	public Answer answer() {
		return Answer.REPLAYED_WITHOUT_RESULT;
	}

}
