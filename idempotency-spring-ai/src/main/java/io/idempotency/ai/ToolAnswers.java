package io.idempotency.ai;

import java.util.Optional;

import io.idempotency.IdempotencyConflictException;
import io.idempotency.IdempotentCall;
import io.idempotency.MissingRunException;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.ResultNotStoredException;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.key.InvalidArgumentsException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The text a model reads for an idempotent call that was not simply executed. */
final class ToolAnswers {

	private static final JsonMapper MAPPER = new JsonMapper();

	private ToolAnswers() {
	}

	/** {@code {"replayed": true, "message": "...", "result": <the tool's result text, as JSON where it is>}}. */
	static String replayed(String resultText) {
		ObjectNode notice = MAPPER.createObjectNode();
		notice.put("replayed", true);
		notice.put("kind", "replayed");
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
			String kind = kindOf(cause);
			if (kind != null) {
				ObjectNode answer = MAPPER.createObjectNode();
				answer.put("replayed", !kind.startsWith("refused"));
				answer.put("kind", kind);
				answer.put("message", cause.getMessage());
				return Optional.of(MAPPER.writeValueAsString(answer));
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return Optional.empty();
	}

	private static String kindOf(Throwable failure) {
		if (failure instanceof ToolCallInProgressException) {
			return "in_progress";
		}
		if (failure instanceof PreviousAttemptFailedException) {
			return "previous_attempt_failed";
		}
		if (failure instanceof ResultNotStoredException) {
			return "replayed_without_result";
		}
		if (failure instanceof IdempotencyConflictException) {
			return "refused_conflict";
		}
		if (failure instanceof MissingRunException) {
			return "refused_without_run";
		}
		if (failure instanceof InvalidArgumentsException) {
			return "refused_invalid_arguments";
		}
		return null;
	}

}
