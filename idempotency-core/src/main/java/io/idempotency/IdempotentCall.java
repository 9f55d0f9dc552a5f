package io.idempotency;

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
 */
public record IdempotentCall(String tool, String toolCallName, IdempotencyKey key, Answer answer, boolean envelope) {

	/** The message the model reads for a replay. */
	public static String replayMessage() {
		return Answer.REPLAYED.message();
	}

}
