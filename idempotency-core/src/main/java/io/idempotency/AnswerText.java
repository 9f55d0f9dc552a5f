package io.idempotency;

import java.util.List;
import java.util.Optional;

import io.idempotency.ledger.DatabaseErrors;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The text a model reads for an idempotent call that was not simply executed, as JSON: the same on every
 * framework's path (Spring AI, MCP, LangChain4j), and for an application's own agent loop.
 */
public final class AnswerText {

	private static final JsonMapper MAPPER = new JsonMapper();

	private AnswerText() {
	}

	/**
	 * The replay notice around a stored result:
	 * {@code {"replayed": true, "kind": "replayed", "message": "...", "result": <the result text, as JSON where it is>}}.
	 */
	public static String replayed(String resultText) {
		return replayed(Answer.REPLAYED, IdempotentCall.replayMessage(), List.of(), resultText);
	}

	/**
	 * The notice of a call answered with an earlier call's stored result, as the call was answered: a replay,
	 * or a replay whose different details were not applied, with {@code "differentDetails": [...]}.
	 */
	public static String replayed(IdempotentCall call, String resultText) {
		return replayed(call.answer(), call.message(), call.differentDetails(), resultText);
	}

	private static String replayed(Answer answer, String message, List<String> differentDetails, String resultText) {
		ObjectNode notice = MAPPER.createObjectNode();
		notice.put("replayed", true);
		notice.put("kind", answer.kind());
		notice.put("message", message);
		if (!differentDetails.isEmpty()) {
			differentDetails.forEach(notice.putArray("differentDetails")::add);
		}
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
	 * The library's own answer to a call that ended with this failure, if the call itself was answered so: a
	 * repeat that was not executed again (in progress, previously failed, done without a stored result), or a
	 * call refused before executing. The answer is found in the failure's causes, where a framework may have
	 * wrapped it. A call that executed and failed has failed as the tool's own: empty, even when a call it
	 * made inside was answered by the library, since that answer is not this call's.
	 * @param failure what the call ended with
	 * @param call how the call was answered, as told to the {@link IdempotentCallScope} around it and found to
	 * be this tool's own call ({@link IdempotentCall#isCallOf}); {@code null} if none was told
	 */
	public static Optional<String> ofFailure(Throwable failure, IdempotentCall call) {
		if (call == null || !call.notExecuted()) {
			return Optional.empty();
		}
		for (Throwable cause : DatabaseErrors.causeChain(failure)) {
			if (cause instanceof AnsweredCall answered && answered.answer() == call.answer()) {
				return Optional.of(answer(answered.answer(), cause.getMessage()));
			}
		}
		return Optional.empty();
	}

	/** A value as JSON text, written by the mapper that writes the answers. */
	public static String json(Object value) {
		return MAPPER.writeValueAsString(value);
	}

	/**
	 * An answer of the library's own, a repeat not executed again or a refusal, with its message:
	 * {@code {"replayed": <whether it is a repeat>, "kind": "...", "message": "..."}}.
	 */
	public static String answer(Answer answer, String message) {
		ObjectNode text = MAPPER.createObjectNode();
		text.put("replayed", answer.isRepeat());
		text.put("kind", answer.kind());
		text.put("message", message);
		return MAPPER.writeValueAsString(text);
	}

}
