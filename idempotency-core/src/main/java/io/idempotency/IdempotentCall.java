package io.idempotency;

import java.util.List;

import io.idempotency.key.IdempotencyKey;

/**
 * One call of an idempotent tool and how it was answered, as told to {@link IdempotentCallListener}s.
 *
 * @param tool the tool's name, as in its keys
 * @param toolCallName the name a framework such as Spring AI exposes the tool under: its {@code @Tool}
 * name, else the method's name
 * @param key the call's key, or {@code null} for a call outside any run
 * @param answer how it was answered
 * @param envelope whether the tool returns a {@link ToolResult}, which tells the model itself
 * @param differentDetails for {@link Answer#REPLAYED_DIFFERENT_DETAILS} and
 * {@link Answer#REFUSED_DIFFERENT_DETAILS}, the paths of the arguments that differ from the earlier call's;
 * empty otherwise
 */
public record IdempotentCall(String tool, String toolCallName, IdempotencyKey key, Answer answer, boolean envelope,
		List<String> differentDetails) {

	public IdempotentCall {
		differentDetails = List.copyOf(differentDetails);
	}

	/** A call answered without different details. */
	public IdempotentCall(String tool, String toolCallName, IdempotencyKey key, Answer answer, boolean envelope) {
		this(tool, toolCallName, key, answer, envelope, List.of());
	}

	/** The message the model reads for a replay. */
	public static String replayMessage() {
		return Answer.REPLAYED.message();
	}

	/**
	 * Whether this is the call of the tool exposed under this name: a framework's tool name
	 * ({@link #toolCallName()}), or the tool's own name, under which a tool written by hand may expose it.
	 */
	public boolean isCallOf(String exposedName) {
		return this.toolCallName.equals(exposedName) || this.tool.equals(exposedName);
	}

	/**
	 * Whether the call ended without executing the tool: a repeat answered from an earlier call, a refusal, or a
	 * call that waits for a person's approval.
	 * Such an answer is the library's, to be told to the model; any other is the tool's own.
	 */
	public boolean notExecuted() {
		return this.answer.isNotExecuted();
	}

	/** The message the model reads with this call's answer, its different details named; {@code null} if none. */
	public String message() {
		return switch (this.answer) {
			case REPLAYED_DIFFERENT_DETAILS -> Answer.differentDetailsReplayed(this.differentDetails);
			case REFUSED_DIFFERENT_DETAILS -> Answer.differentDetailsRefused(this.differentDetails);
			default -> this.answer.message();
		};
	}

}
