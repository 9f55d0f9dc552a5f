package io.idempotency.autoconfigure.ai;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import io.idempotency.IdempotentCall;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage.ToolResponse;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.definition.ToolDefinition;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Makes every replayed tool call visible to the model, whatever the tool's result type: the tool response
 * of a replayed call becomes {@code {"replayed": true, "message": "...", "result": <the stored result>}}.
 * Tools that return {@code ToolResult} already say so themselves and are left as they are. In-progress and
 * previously-failed calls need nothing: their exceptions' messages are written for the model, and Spring
 * AI hands a tool's exception message to the model.
 */
public class ReplayNoticeToolCallingManager implements ToolCallingManager {

	private static final JsonMapper MAPPER = new JsonMapper();

	private final ToolCallingManager delegate;

	private final ToolCallJournal journal;

	public ReplayNoticeToolCallingManager(ToolCallingManager delegate, ToolCallJournal journal) {
		this.delegate = delegate;
		this.journal = journal;
	}

	@Override
	public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
		return this.delegate.resolveToolDefinitions(chatOptions);
	}

	@Override
	public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
		List<IdempotentCall> calls = ToolCallJournal.newRecord();
		ToolExecutionResult result = this.journal.record(calls,
				() -> this.delegate.executeToolCalls(prompt, chatResponse));
		if (calls.stream().noneMatch(ReplayNoticeToolCallingManager::needsNotice)) {
			return result;
		}
		List<Message> history = new ArrayList<>(result.conversationHistory());
		int last = history.size() - 1;
		if (last < 0 || !(history.get(last) instanceof ToolResponseMessage responses)) {
			return result;
		}
		history.set(last, ToolResponseMessage.builder()
			.responses(withNotices(responses.getResponses(), calls))
			.metadata(responses.getMetadata())
			.build());
		return ToolExecutionResult.builder().conversationHistory(history).returnDirect(result.returnDirect()).build();
	}

	private static boolean needsNotice(IdempotentCall call) {
		return call.outcome() == IdempotentCall.Outcome.REPLAYED && !call.envelope();
	}

	/** Pairs responses and idempotent calls by tool name, in order: tools run one after another. */
	private static List<ToolResponse> withNotices(List<ToolResponse> responses, List<IdempotentCall> calls) {
		List<IdempotentCall> pending = new ArrayList<>(calls);
		List<ToolResponse> noticed = new ArrayList<>(responses.size());
		for (ToolResponse response : responses) {
			IdempotentCall call = take(pending, response.name());
			noticed.add((call != null && needsNotice(call))
					? new ToolResponse(response.id(), response.name(), notice(response.responseData())) : response);
		}
		return noticed;
	}

	private static IdempotentCall take(List<IdempotentCall> pending, String toolName) {
		for (Iterator<IdempotentCall> it = pending.iterator(); it.hasNext();) {
			IdempotentCall call = it.next();
			if (call.toolCallName().equals(toolName)) {
				it.remove();
				return call;
			}
		}
		return null;
	}

	private static String notice(String responseData) {
		ObjectNode notice = MAPPER.createObjectNode();
		notice.put("replayed", true);
		notice.put("message", IdempotentCall.replayMessage());
		JsonNode result;
		try {
			result = (responseData != null) ? MAPPER.readTree(responseData) : MAPPER.nullNode();
		}
		catch (JacksonException ex) {
			result = MAPPER.getNodeFactory().stringNode(responseData);
		}
		notice.set("result", result);
		return MAPPER.writeValueAsString(notice);
	}

}
