package io.idempotency.sample.agent;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.idempotency.Answer;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * The sample's model when no other is configured: deterministic, offline, and as repetitive as real
 * models are. It turns a plain request into tool calls, calls two tools in one turn, and then, like a
 * model that found the first result ambiguous, calls the same tool again with its arguments reordered or
 * re-spaced. It answers from what the tools returned, and says so when it was told a call was a replay. Told a
 * call awaits a person's approval, or was not approved, it calls nothing more and tells the user.
 *
 * <ul>
 * <li>"quote 200 of SKU-4411 for Henderson Industrial": {@code check_inventory} and {@code draft_quote} in
 * one turn, then {@code draft_quote} again, reordered and re-spaced;</li>
 * <li>"open a ticket for the seal failure and one for the pump noise" (optionally "... at Acme"): two
 * {@code open_ticket} calls in one turn with a twin of the first, then the first again, re-spaced and its
 * description rephrased;</li>
 * <li>"send quote 7": {@code send_quote}, then the same call again;</li>
 * <li>"quote 1000 of SKU-4411 for Henderson Industrial and send it": {@code check_inventory} and
 * {@code draft_quote}, then {@code send_quote} of the quote drafted;</li>
 * <li>"carry on ...": in a resumed run, the calls that were told they await approval, again, with the same
 * arguments.</li>
 * <li>"reserve 50 of SKU-4411 for Henderson Industrial": {@code reserve_stock}, then the same call again,
 * re-spaced.</li>
 * </ul>
 */
public class ScriptedChatModel implements ChatModel {

	private static final JsonMapper JSON = new JsonMapper();

	private static final Pattern QUOTE = Pattern
		.compile("quote\\s+(\\d+)\\s+(?:of|x|units of)\\s+(SKU-[\\w-]+)\\s+for\\s+(.+?)[.!]?$", Pattern.CASE_INSENSITIVE);

	private static final Pattern TICKETS = Pattern.compile(
			"ticket\\s+(?:for|about)\\s+(?:the\\s+)?(.+?)(?:\\s+and\\s+(?:one|another)\\s+(?:for|about)\\s+(?:the\\s+)?(.+?))?(?:\\s+at\\s+(.+?))?[.!]?$",
			Pattern.CASE_INSENSITIVE);

	private static final Pattern RESERVE = Pattern
		.compile("reserve\\s+(\\d+)\\s+(?:of|x|units of)\\s+(SKU-[\\w-]+)\\s+for\\s+(.+?)[.!]?$", Pattern.CASE_INSENSITIVE);

	private static final Pattern QUOTE_AND_SEND = Pattern.compile(
			"quote\\s+(\\d+)\\s+(?:of|x|units of)\\s+(SKU-[\\w-]+)\\s+for\\s+(.+?)\\s+and\\s+send\\s+it[.!]?$",
			Pattern.CASE_INSENSITIVE);

	private static final Pattern CARRY_ON = Pattern.compile("^carry\\s+on\\b", Pattern.CASE_INSENSITIVE);

	private static final Pattern SEND = Pattern.compile("send\\s+quote\\s+#?(\\d+)", Pattern.CASE_INSENSITIVE);

	private static final String DEFAULT_ACCOUNT = "Henderson Industrial";

	private final AtomicLong callIds = new AtomicLong();

	@Override
	public ChatResponse call(Prompt prompt) {
		List<Message> messages = prompt.getInstructions();
		int lastUser = lastUserMessage(messages);
		String request = (lastUser >= 0) ? messages.get(lastUser).getText().trim() : "";
		List<Message> earlier = messages.subList(0, Math.max(lastUser, 0));
		List<Message> thisRequest = messages.subList(lastUser + 1, messages.size());
		List<List<AssistantMessage.ToolCall>> plan = plan(request, earlier, thisRequest);
		int turn = (int) thisRequest.stream()
			.filter((message) -> message instanceof AssistantMessage assistant && assistant.hasToolCalls())
			.count();
		// Told to wait for a person, or that a person said no: it does not call again, it tells the user.
		boolean stop = readAny(thisRequest, Answer.AWAITING_APPROVAL) || readAny(thisRequest, Answer.REFUSED_NOT_APPROVED);
		AssistantMessage answer = (turn < plan.size() && !stop)
				? AssistantMessage.builder().content("").toolCalls(plan.get(turn)).build()
				: new AssistantMessage(summary(plan.isEmpty(), thisRequest));
		return new ChatResponse(List.of(new Generation(answer)));
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> Flux.just(call(prompt)));
	}

	@Override
	public ChatOptions getOptions() {
		return ToolCallingChatOptions.builder().build();
	}

	private List<List<AssistantMessage.ToolCall>> plan(String request, List<Message> earlier, List<Message> thisRequest) {
		List<List<AssistantMessage.ToolCall>> turns = new ArrayList<>();
		Matcher quoteAndSend = QUOTE_AND_SEND.matcher(request);
		Matcher quote = QUOTE.matcher(request);
		Matcher tickets = TICKETS.matcher(request);
		Matcher send = SEND.matcher(request);
		Matcher reserve = RESERVE.matcher(request);
		if (CARRY_ON.matcher(request).find()) {
			// Resumed: the calls that awaited a person's approval, again, with the same arguments.
			List<AssistantMessage.ToolCall> again = awaitedApproval(earlier).stream()
				.map((call) -> new AssistantMessage.ToolCall("call-" + this.callIds.incrementAndGet(), "function",
						call.name(), call.arguments()))
				.toList();
			if (!again.isEmpty()) {
				turns.add(again);
			}
		}
		else if (quoteAndSend.find()) {
			int quantity = Integer.parseInt(quoteAndSend.group(1));
			String sku = quoteAndSend.group(2).toUpperCase();
			String account = quoteAndSend.group(3).trim();
			turns.add(List.of(call("check_inventory", Map.of("sku", sku)),
					call("draft_quote", ordered("accountName", account, "sku", sku, "quantity", quantity))));
			// Then it sends the quote the draft returned.
			draftedQuoteId(thisRequest).ifPresent((quoteId) -> turns.add(List.of(call("send_quote", Map.of("quoteId", quoteId)))));
		}
		else if (reserve.find()) {
			int quantity = Integer.parseInt(reserve.group(1));
			String sku = reserve.group(2).toUpperCase();
			String account = reserve.group(3).trim();
			turns.add(List.of(call("reserve_stock", ordered("accountName", account, "sku", sku, "quantity", quantity))));
			// The model calls again, the SKU re-spaced.
			turns.add(List.of(call("reserve_stock", ordered("sku", sku + " ", "quantity", quantity, "accountName", account))));
		}
		else if (quote.find()) {
			int quantity = Integer.parseInt(quote.group(1));
			String sku = quote.group(2).toUpperCase();
			String account = quote.group(3).trim();
			turns.add(List.of(call("check_inventory", Map.of("sku", sku)),
					call("draft_quote", ordered("accountName", account, "sku", sku, "quantity", quantity))));
			// The model calls again: arguments in another order, the SKU re-spaced, the quantity a decimal.
			turns.add(List.of(call("draft_quote", ordered("quantity", new BigDecimal(quantity + ".0"), "sku", " " + sku + " ", "accountName", account))));
		}
		else if (send.find()) {
			long quoteId = Long.parseLong(send.group(1));
			turns.add(List.of(call("send_quote", Map.of("quoteId", quoteId))));
			turns.add(List.of(call("send_quote", Map.of("quoteId", quoteId))));
		}
		else if (tickets.find()) {
			String account = (tickets.group(3) != null) ? tickets.group(3).trim() : DEFAULT_ACCOUNT;
			String first = tickets.group(1).trim();
			List<AssistantMessage.ToolCall> opened = new ArrayList<>();
			opened.add(call("open_ticket", ordered("accountName", account, "issue", first, "description",
					"The customer reports a " + first + ".")));
			if (tickets.group(2) != null) {
				String second = tickets.group(2).trim();
				opened.add(call("open_ticket", ordered("accountName", account, "issue", second, "description",
						"The customer reports a " + second + ".")));
			}
			// A twin: the same call again in the same turn.
			opened.add(call("open_ticket", ordered("accountName", account, "issue", first, "description",
					"The customer reports a " + first + ".")));
			turns.add(opened);
			// Then again, re-spaced and with the description rephrased.
			turns.add(List.of(call("open_ticket", ordered("issue", first + "  ", "accountName", account, "description",
					"Customer says: " + first + ", please look into it"))));
		}
		return turns;
	}

	private AssistantMessage.ToolCall call(String tool, Map<String, Object> arguments) {
		return new AssistantMessage.ToolCall("call-" + this.callIds.incrementAndGet(), "function", tool,
				JSON.writeValueAsString(arguments));
	}

	private static Map<String, Object> ordered(Object... namesAndValues) {
		Map<String, Object> arguments = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			arguments.put((String) namesAndValues[i], namesAndValues[i + 1]);
		}
		return arguments;
	}

	/** The calls of the earlier conversation that were told they await a person's approval, each once. */
	private static List<AssistantMessage.ToolCall> awaitedApproval(List<Message> earlier) {
		Map<String, AssistantMessage.ToolCall> called = new LinkedHashMap<>();
		Map<String, AssistantMessage.ToolCall> awaited = new LinkedHashMap<>();
		for (Message message : earlier) {
			if (message instanceof AssistantMessage assistant && assistant.hasToolCalls()) {
				assistant.getToolCalls().forEach((call) -> called.put(call.id(), call));
			}
			else if (message instanceof ToolResponseMessage responses) {
				for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
					AssistantMessage.ToolCall call = called.get(response.id());
					if (call != null && kindOf(response.responseData()).equals(Answer.AWAITING_APPROVAL.kind())) {
						awaited.putIfAbsent(call.name() + " " + call.arguments(), call);
					}
				}
			}
		}
		return List.copyOf(awaited.values());
	}

	/** The id of the quote that draft_quote returned in this request, plain or replayed. */
	private static java.util.Optional<Long> draftedQuoteId(List<Message> thisRequest) {
		for (Message message : thisRequest) {
			if (message instanceof ToolResponseMessage responses) {
				for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
					if (response.name().equals("draft_quote")) {
						JsonNode quote = json(response.responseData());
						JsonNode id = quote.has("result") ? quote.path("result").path("id") : quote.path("id");
						if (id.isNumber()) {
							return java.util.Optional.of(id.asLong());
						}
					}
				}
			}
		}
		return java.util.Optional.empty();
	}

	/** Whether the model read this answer for any call of this request. */
	private static boolean readAny(List<Message> thisRequest, Answer answer) {
		return thisRequest.stream()
			.filter(ToolResponseMessage.class::isInstance)
			.flatMap((message) -> ((ToolResponseMessage) message).getResponses().stream())
			.anyMatch((response) -> kindOf(response.responseData()).equals(answer.kind()));
	}

	private static String kindOf(String data) {
		return json(data).path("kind").asString("");
	}

	/** The text as JSON; a missing node when it is not JSON (the text of an error). */
	private static JsonNode json(String data) {
		try {
			return JSON.readTree(data);
		}
		catch (RuntimeException ex) {
			return JSON.missingNode();
		}
	}

	private static int lastUserMessage(List<Message> messages) {
		for (int i = messages.size() - 1; i >= 0; i--) {
			if (messages.get(i) instanceof UserMessage) {
				return i;
			}
		}
		return -1;
	}

	/** The answer to the user, from what the tools returned in this turn of the conversation. */
	private static String summary(boolean nothingPlanned, List<Message> thisRequest) {
		if (nothingPlanned) {
			return "I can draft quotes, open tickets, reserve stock and send quotes. Try \"quote 200 of SKU-4411 for"
					+ " Henderson Industrial\", \"quote 1000 of SKU-4411 for Henderson Industrial and send it\", \"open a"
					+ " ticket for the seal failure and one for the pump noise\", \"reserve 50"
					+ " of SKU-4411 for Henderson Industrial\" or \"send quote 1\".";
		}
		List<String> lines = new ArrayList<>();
		boolean unsettled = false;
		for (Message message : thisRequest) {
			if (message instanceof ToolResponseMessage responses) {
				for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
					lines.add(response.name() + ": " + reading(response.responseData()));
					unsettled |= !tookEffectOrReplayed(response.responseData());
				}
			}
		}
		// Said only when every call went through: not above an error or a call whose outcome is not known.
		String opening = unsettled ? "Not everything went through." : "Done.";
		if (readAny(thisRequest, Answer.AWAITING_APPROVAL)) {
			opening = "Waiting for approval: a person must approve this before it is done, and nothing of it was done"
					+ " yet. I carry on once they decide.";
		}
		else if (readAny(thisRequest, Answer.REFUSED_NOT_APPROVED)) {
			opening = "Not done: it was not approved, so nothing of it was done.";
		}
		return opening + " What each call told me:\n" + String.join("\n", lines);
	}

	/** A result, or a replay of one: not an error, a call in progress, a failure or a refusal. */
	private static boolean tookEffectOrReplayed(String data) {
		try {
			JsonNode answer = JSON.readTree(data);
			if (!answer.isObject() && !answer.isArray() && !answer.isNumber()) {
				return false;
			}
			String kind = answer.path("kind").asString("");
			return kind.isEmpty() || kind.startsWith(Answer.REPLAYED.kind());
		}
		catch (RuntimeException ex) {
			// Not JSON: the text of an error.
			return false;
		}
	}

	private static String reading(String data) {
		try {
			JsonNode answer = JSON.readTree(data);
			if (answer.isObject() && answer.has("kind")) {
				String kind = answer.get("kind").asString();
				if (kind.equals(Answer.REPLAYED.kind())) {
					return "already done earlier in this request, so not done again; counting it once";
				}
				if (kind.equals(Answer.REPLAYED_DIFFERENT_DETAILS.kind())) {
					return "already done earlier in this request, so not done again; these details were not applied: "
							+ answer.path("differentDetails").toString();
				}
				return kind.replace('_', ' ') + ": " + answer.path("message").asString();
			}
			if (answer.isObject() && answer.has("messageId") && answer.has("quoteId")) {
				return "quote #" + answer.get("quoteId").asLong() + " sent to the customer (message "
						+ answer.get("messageId").asString() + ")";
			}
		}
		catch (RuntimeException ex) {
			// Not JSON: the tool's text as it is.
		}
		return data;
	}

}
