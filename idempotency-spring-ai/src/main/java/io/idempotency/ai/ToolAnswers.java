package io.idempotency.ai;

import java.util.Map;
import java.util.Optional;

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

	/** The library's own answers, by the exception that carries each, and the kind the model reads. */
	private static final Map<Class<? extends Throwable>, String> KINDS = Map.of(
			ToolCallInProgressException.class, "in_progress",
			PreviousAttemptFailedException.class, "previous_attempt_failed",
			ResultNotStoredException.class, "replayed_without_result",
			IdempotencyConflictException.class, "refused_conflict",
			MissingRunException.class, "refused_without_run",
			InvalidArgumentsException.class, "refused_invalid_arguments",
			LedgerUnavailableException.class, "refused_ledger_unavailable");

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
				return Optional.of(answer(kind, cause.getMessage()));
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return Optional.empty();
	}

	/** The {@code kind} member of a JSON object's text, or {@code null} where it has none or is not JSON. */
	static String kindIn(String json) {
		try {
			JsonNode kind = (json != null) ? MAPPER.readTree(json).get("kind") : null;
			return (kind != null && kind.isString()) ? kind.stringValue() : null;
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/** A value as JSON text. */
	static String json(Object value) {
		return MAPPER.writeValueAsString(value);
	}

	/** An answer of the library's own, of this kind ({@code refused_...}, {@code in_progress}, ...), with its message. */
	static String refused(String kind, String message) {
		return answer(kind, message);
	}

	private static String answer(String kind, String message) {
		ObjectNode answer = MAPPER.createObjectNode();
		answer.put("replayed", !kind.startsWith("refused"));
		answer.put("kind", kind);
		answer.put("message", message);
		return MAPPER.writeValueAsString(answer);
	}

	private static String kindOf(Throwable failure) {
		for (Map.Entry<Class<? extends Throwable>, String> kind : KINDS.entrySet()) {
			if (kind.getKey().isInstance(failure)) {
				return kind.getValue();
			}
		}
		return null;
	}

}
