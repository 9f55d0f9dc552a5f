package io.idempotency.key;

import io.idempotency.Answer;
import io.idempotency.AnsweredCall;

/**
 * Thrown when a tool's arguments cannot be turned into an idempotency key: the arguments are not a JSON
 * object, a number is not finite or too long, a value cannot be written as JSON, and so on. Nothing has
 * been claimed or executed when this is thrown.
 *
 * <p>{@link #path()} names the offending argument, such as {@code quantity} or {@code items[2].price};
 * it is empty when the arguments as a whole are at fault.
 */
public class InvalidArgumentsException extends IllegalArgumentException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	private final String path;

	InvalidArgumentsException(String tool, String path, String problem, Throwable cause) {
		super(message(tool, path, problem), cause);
		this.tool = tool;
		this.path = path;
	}

	private static String message(String tool, String path, String problem) {
		String where = path.isEmpty() ? "the arguments" : "argument '" + path + "'";
		return "Cannot derive an idempotency key for tool '" + tool + "': " + where + " " + problem;
	}

	/** The tool whose arguments were refused. */
	public String tool() {
		return this.tool;
	}

	/** The path of the offending argument ({@code items[2].price}), or empty for the arguments as a whole. */
	public String path() {
		return this.path;
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_INVALID_ARGUMENTS;
	}

}
