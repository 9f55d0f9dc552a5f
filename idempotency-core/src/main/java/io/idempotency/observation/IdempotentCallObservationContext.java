package io.idempotency.observation;

import io.idempotency.Answer;
import io.idempotency.key.IdempotencyKey;
import io.micrometer.observation.Observation;

/**
 * What the observation around one call of an idempotent tool knows: the tool, and once the call is
 * answered, how and under which key. An {@link IdempotentCallObservationConvention} reads it when the
 * observation stops.
 */
public class IdempotentCallObservationContext extends Observation.Context {

	private final String toolName;

	private final String toolCallName;

	private volatile Answer answer;

	private volatile IdempotencyKey key;

	/**
	 * @param toolName the tool's name, as in its keys ({@code open_ticket})
	 * @param toolCallName the name a framework exposes the tool under: its {@code @Tool} name, else the method's
	 */
	public IdempotentCallObservationContext(String toolName, String toolCallName) {
		this.toolName = toolName;
		this.toolCallName = toolCallName;
	}

	/** The tool's name, as in its keys. */
	public String getToolName() {
		return this.toolName;
	}

	/** The name a framework exposes the tool under. */
	public String getToolCallName() {
		return this.toolCallName;
	}

	/**
	 * How the call was answered; {@code null} until it is, and for a call that ended without an answer (an
	 * error of the library's own). Set by the advice as soon as the answer is known, also where the listeners
	 * are told later (a call nested in a transactional tool).
	 */
	public Answer getAnswer() {
		return this.answer;
	}

	public void setAnswer(Answer answer) {
		this.answer = answer;
	}

	/** The call's key; {@code null} for a call answered before it had one (outside a run, invalid arguments). */
	public IdempotencyKey getKey() {
		return this.key;
	}

	public void setKey(IdempotencyKey key) {
		this.key = key;
	}

}
