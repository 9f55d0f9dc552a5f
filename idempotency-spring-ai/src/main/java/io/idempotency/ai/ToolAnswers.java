package io.idempotency.ai;

import java.util.Map;
import java.util.Optional;

import io.idempotency.Answer;
import io.idempotency.IdempotencyConflictException;
import io.idempotency.IdempotentCall;
import io.idempotency.MissingRunException;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.ResultNotStoredException;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.LedgerUnavailableException;
import io.idempotency.key.InvalidArgumentsException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The text a model reads for an idempotent call that was not simply executed. */
final class ToolAnswers {

	private static final JsonMapper MAPPER = new JsonMapper();

	/** The library's own answers, by the exception that carries each. */
	private static final Map<Class<? extends Throwable>, Answer> ANSWERS = Map.of(
			ToolCallInProgressException.class, Answer.IN_PROGRESS,
			PreviousAttemptFailedException.class, Answer.PREVIOUS_ATTEMPT_FAILED,
			ResultNotStoredException.class, Answer.REPLAYED_WITHOUT_RESULT,
			IdempotencyConflictException.class, Answer.REFUSED_CONFLICT,
			MissingRunException.class, Answer.REFUSED_WITHOUT_RUN,
			InvalidArgumentsException.class, Answer.REFUSED_INVALID_ARGUMENTS,
			LedgerUnavailableException.class, Answer.REFUSED_LEDGER_UNAVAILABLE);

	private ToolAnswers() {
	}

	/** {@code {"replayed": true, "message": "...", "result": <the tool's result text, as JSON where it is>}}. */
	static String replayed(String resultText) {
		ObjectNode notice = MAPPER.createObjectNode();
		notice.put("replayed", true);
		notice.put("kind", Answer.REPLAYED.kind());
		notice.put("message", IdempotentCall.replayMessage());
		JsonNode result;
		try {
			result = (resultText != null) ? MAPPER.readTree(resultText) : MAPPER.nullNode();
		}
		catch (JacksonException ex) {
			result = MAPPER.getNodeFactory().stringNode(resultText);
		}
		notice.set("result", result);
		return MAPPER.writeValueAsString(notice);
	}

	/**
	 * The library's own answer in a tool's failure, if it is one: a repeat that was not executed again (in
	 * progress, previously failed, done without a stored result), or a call it refused before executing.
	 */
	static Optional<String> ofFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			Answer answer = answerOf(cause);
			if (answer != null) {
				return Optional.of(answer(answer, cause.getMessage()));
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return Optional.empty();
	}

	/** A value as JSON text. */
	static String json(Object value) {
		return MAPPER.writeValueAsString(value);
	}

	/**
	 * An answer of the library's own, a repeat not executed again or a refusal, with its message:
	 * {@code {"replayed": <whether it is a repeat>, "kind": "...", "message": "..."}}.
	 */
	static String answer(Answer answer, String message) {
		ObjectNode text = MAPPER.createObjectNode();
		text.put("replayed", answer.isRepeat());
		text.put("kind", answer.kind());
		text.put("message", message);
		return MAPPER.writeValueAsString(text);
	}

	private static Answer answerOf(Throwable failure) {
		for (Map.Entry<Class<? extends Throwable>, Answer> answer : ANSWERS.entrySet()) {
			if (answer.getKey().isInstance(failure)) {
				return answer.getValue();
			}
		}
		return null;
	}

}
