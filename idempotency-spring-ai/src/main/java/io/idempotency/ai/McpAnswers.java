package io.idempotency.ai;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.idempotency.Answer;
import io.idempotency.AnsweredCall;
import io.idempotency.AnswerText;
import io.idempotency.IdempotentCall;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.DatabaseErrors;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

/**
 * What an MCP client reads of each answer to a call of an idempotent tool: the text the model reads, and in
 * the result's {@code _meta} the answer's kind ({@value IdempotentMcpTools#KIND_META_KEY}), whether it is a
 * repeat answered from an earlier call ({@value IdempotentMcpTools#REPLAYED_META_KEY}) and, for the library's
 * own answers, the message ({@value IdempotentMcpTools#MESSAGE_META_KEY}). {@code isError} is the tool's own for
 * a call that executed, and {@code true} for every call not executed: a repeat not executed again, a call that
 * awaits a person's approval (as one in progress: nothing was done, and calling again does not help) and a refusal,
 * whether the answer was thrown or returned as a {@code ToolResult}.
 */
final class McpAnswers {

	private final String runIdMetaKey;

	McpAnswers(String runIdMetaKey) {
		this.runIdMetaKey = runIdMetaKey;
	}

	/** The result, telling how the called tool's own call was answered, if it reached the advice. */
	CallToolResult answered(String toolName, Optional<IdempotentCall> last, CallToolResult result) {
		// Only the called tool's own answer: a tool that is not idempotent may make idempotent calls of its own.
		Optional<IdempotentCall> own = last.filter((told) -> told.isCallOf(toolName));
		if (result == null || own.isEmpty()) {
			return result;
		}
		IdempotentCall call = own.get();
		Answer answer = call.answer();
		if (Boolean.TRUE.equals(result.isError())) {
			// A refusal, or a repeat of a plain-typed tool that was not executed again, thrown as an exception;
			// otherwise the tool's own error, as it is.
			return call.notExecuted() ? refusal(result, answer) : told(result, result.isError(), answer, null);
		}
		if (call.envelope()) {
			// A ToolResult tells the model itself, in the text; a call not executed (a repeat not executed again, a
			// call awaiting approval or not approved) is an error result, as it is where the answer is thrown.
			boolean error = answer.isNotExecuted() && !answer.isReplayWithResult() || Boolean.TRUE.equals(result.isError());
			return told(result, error ? Boolean.TRUE : result.isError(), answer, call.message());
		}
		return answer.isReplayWithResult() ? withNotice(result, call) : told(result, result.isError(), answer, null);
	}

	/**
	 * The library's answer to a call that ended with this failure, as an error result, where the failure is
	 * the called tool's own answer: a repeat not executed again or a refusal. Empty for the tool's own failure.
	 */
	Optional<CallToolResult> ofFailure(String toolName, Optional<IdempotentCall> last, Throwable failure) {
		Optional<IdempotentCall> own = last.filter((told) -> told.isCallOf(toolName));
		Optional<String> text = AnswerText.ofFailure(failure, own.orElse(null));
		if (text.isEmpty()) {
			return Optional.empty();
		}
		Answer answer = own.get().answer();
		if (answer == Answer.REFUSED_WITHOUT_RUN) {
			return Optional.of(error(withoutRunMessage(), answer));
		}
		return Optional.of(error(failure(failure, answer), answer));
	}

	/** A call whose {@code _meta} run is not a run id: refused, and nothing runs. */
	CallToolResult invalidRun() {
		return error("The _meta entry '" + this.runIdMetaKey + "' of this call must be a run id: a string that is not"
				+ " blank, of at most " + ClaimRequest.MAX_NAME_LENGTH + " characters, without control characters."
				+ " Nothing was done", Answer.REFUSED_INVALID_RUN);
	}

	/** The message of the library's answer in the failure's causes, as {@link AnswerText#ofFailure} finds it. */
	private static String failure(Throwable failure, Answer answer) {
		for (Throwable cause : DatabaseErrors.causeChain(failure)) {
			if (cause instanceof AnsweredCall answered && answered.answer() == answer) {
				return cause.getMessage();
			}
		}
		return answer.message();
	}

	/**
	 * What an MCP client reads of a call refused for want of a run: the client can mend it, by sending the run
	 * in {@code _meta}, where a model in an application's own loop cannot.
	 */
	private String withoutRunMessage() {
		return "Not done: this tool is carried out only within a run, and this call named none, so nothing was done."
				+ " Send the run in this request's _meta entry '" + this.runIdMetaKey + "' (a string naming the user"
				+ " request this call belongs to, the same for every retry of it), then call again.";
	}

	/** The library's answer as the error the server made of its exception, with the kind the model reads. */
	private CallToolResult refusal(CallToolResult result, Answer answer) {
		List<McpSchema.Content> content = new ArrayList<>(result.content());
		int text = indexOfText(content);
		String message = (answer == Answer.REFUSED_WITHOUT_RUN) ? withoutRunMessage()
				: (text >= 0) ? ((McpSchema.TextContent) content.get(text)).text() : answer.message();
		McpSchema.TextContent said = McpSchema.TextContent.builder(AnswerText.answer(answer, message)).build();
		if (text >= 0) {
			content.set(text, said);
		}
		else {
			content.add(0, said);
		}
		return new CallToolResult(content, true, result.structuredContent(), meta(result.meta(), answer, message));
	}

	private static CallToolResult withNotice(CallToolResult result, IdempotentCall call) {
		List<McpSchema.Content> content = new ArrayList<>(result.content());
		int text = indexOfText(content);
		if (text >= 0) {
			String stored = ((McpSchema.TextContent) content.get(text)).text();
			content.set(text, McpSchema.TextContent.builder(AnswerText.replayed(call, stored)).build());
		}
		else {
			// A structured result only: the server writes its text; the notice carries it instead.
			String stored = (result.structuredContent() != null) ? AnswerText.json(result.structuredContent()) : null;
			content.add(0, McpSchema.TextContent.builder(AnswerText.replayed(call, stored)).build());
		}
		return new CallToolResult(content, result.isError(), result.structuredContent(),
				meta(result.meta(), call.answer(), call.message()));
	}

	private static CallToolResult told(CallToolResult result, Boolean isError, Answer answer, String message) {
		List<McpSchema.Content> content = result.content();
		if ((content == null || content.isEmpty()) && result.structuredContent() != null) {
			// The text the server would write of a structured result: it writes a result of its own, without
			// _meta, for one that has none.
			content = List.of(McpSchema.TextContent.builder(AnswerText.json(result.structuredContent())).build());
		}
		return new CallToolResult(content, isError, result.structuredContent(), meta(result.meta(), answer, message));
	}

	private static CallToolResult error(String message, Answer answer) {
		return CallToolResult.builder()
			.content(List.of(McpSchema.TextContent.builder(AnswerText.answer(answer, message)).build()))
			.isError(true)
			.meta(meta(null, answer, message))
			.build();
	}

	/** The result's own {@code _meta}, with the answer's kind, whether it is a repeat, and its message if any. */
	private static Map<String, Object> meta(Map<String, Object> own, Answer answer, String message) {
		Map<String, Object> meta = new LinkedHashMap<>((own != null) ? own : Map.of());
		meta.put(IdempotentMcpTools.KIND_META_KEY, answer.kind());
		meta.put(IdempotentMcpTools.REPLAYED_META_KEY, answer.isRepeat());
		if (message != null) {
			meta.put(IdempotentMcpTools.MESSAGE_META_KEY, message);
		}
		else {
			meta.remove(IdempotentMcpTools.MESSAGE_META_KEY);
		}
		return meta;
	}

	private static int indexOfText(List<McpSchema.Content> content) {
		for (int i = 0; i < content.size(); i++) {
			if (content.get(i) instanceof McpSchema.TextContent) {
				return i;
			}
		}
		return -1;
	}

}
