package io.idempotency.test.ai;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import reactor.core.publisher.Flux;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A {@link ChatModel} that answers from a script, turn by turn, so that a test drives Spring AI's real tool
 * loop (a {@code ChatClient} and its tool calling) without a network: each turn either calls tools or answers
 * the user. It keeps what the tools answered, to assert on what the model read.
 *
 * <pre class="code">
 * model.callsTool("open_ticket", "{\"accountName\": \"Acme\", \"issue\": \"leak\"}",
 *                 "{\"issue\": \"leak\", \"accountName\": \"Acme\"}")   // one turn, two calls
 *      .answers("Ticket opened.");
 * ... ask the application ...
 * model.assertScriptUsed();
 * </pre>
 *
 * <p>It refuses what would otherwise pass silently, with a message that says what is wrong: a tool call
 * scripted for a tool the prompt does not offer (the tools were not given to the prompt, or the name differs
 * from the tool's), a turn whose tool calls were never answered by the tool loop, a turn asked for that was
 * not scripted, and ({@link #assertScriptUsed()}) turns that were scripted but never asked for, as when no
 * tool loop runs. Its options are {@link ToolCallingChatOptions}, which Spring AI's tool calling needs of a
 * model. Thread-safe; one script at a time.
 */
public final class ScriptedChatModel implements ChatModel {

	private static final JsonMapper JSON = new JsonMapper();

	private final Deque<AssistantMessage> script = new ArrayDeque<>();

	private final List<Prompt> prompts = new ArrayList<>();

	private final List<ToolResponseMessage.ToolResponse> toolResponses = new ArrayList<>();

	/** The ids of the calls of the turns answered so far whose tool responses were not read yet. */
	private final Set<String> unanswered = new LinkedHashSet<>();

	private final AtomicLong callIds = new AtomicLong();

	/**
	 * A tool call, to script several tools in one turn with {@link ScriptedChatModel#callsInOneTurn}.
	 *
	 * @param tool the tool's name, as the prompt offers it
	 * @param arguments the call's arguments, as JSON
	 */
	public record ToolCall(String tool, String arguments) {

		/**
		 * @throws IllegalArgumentException if the tool is blank or the arguments are not JSON
		 */
		public ToolCall {
			if (tool == null || tool.isBlank()) {
				throw new IllegalArgumentException("A scripted tool call names its tool, but the name was blank");
			}
			try {
				JSON.readTree(Objects.requireNonNull(arguments, "arguments"));
			}
			catch (JacksonException ex) {
				throw new IllegalArgumentException("The arguments scripted for " + tool + " are not JSON: " + arguments, ex);
			}
		}

	}

	/**
	 * A tool call, for {@link #callsInOneTurn}.
	 * @param tool the tool's name, as the prompt offers it
	 * @param arguments the call's arguments, as JSON
	 */
	public static ToolCall toolCall(String tool, String arguments) {
		return new ToolCall(tool, arguments);
	}

	/**
	 * Scripts a turn in which the model calls one tool, once for each arguments given, as models batch calls
	 * (and repeat them).
	 * @param tool the tool's name, as the prompt offers it
	 * @param arguments each call's arguments, as JSON
	 * @return this model, to script the next turn
	 */
	public ScriptedChatModel callsTool(String tool, String... arguments) {
		if (arguments.length == 0) {
			throw new IllegalArgumentException("A turn that calls " + tool + " needs the arguments of at least one call");
		}
		List<ToolCall> calls = new ArrayList<>();
		for (String each : arguments) {
			calls.add(new ToolCall(tool, each));
		}
		return callsInOneTurn(calls.toArray(ToolCall[]::new));
	}

	/**
	 * Scripts a turn in which the model makes these tool calls.
	 * @param calls the calls, in order
	 * @return this model, to script the next turn
	 */
	public synchronized ScriptedChatModel callsInOneTurn(ToolCall... calls) {
		if (calls.length == 0) {
			throw new IllegalArgumentException("A turn of tool calls needs at least one call");
		}
		List<AssistantMessage.ToolCall> toolCalls = new ArrayList<>();
		for (ToolCall call : calls) {
			toolCalls.add(new AssistantMessage.ToolCall("call-" + this.callIds.incrementAndGet(), "function",
					call.tool(), call.arguments()));
		}
		this.script.add(AssistantMessage.builder().content("").toolCalls(toolCalls).build());
		return this;
	}

	/**
	 * Scripts a turn in which the model answers the user, which ends the tool loop.
	 * @param text the answer
	 * @return this model, to script the next request
	 */
	public synchronized ScriptedChatModel answers(String text) {
		this.script.add(new AssistantMessage(Objects.requireNonNull(text, "text")));
		return this;
	}

	@Override
	public synchronized ChatResponse call(Prompt prompt) {
		this.prompts.add(prompt);
		readToolResponses(prompt);
		if (!this.unanswered.isEmpty()) {
			throw new IllegalStateException("The model was asked again before its tool calls " + this.unanswered
					+ " were answered: no tool loop ran them. Call the model through a ChatClient, whose tool calling"
					+ " runs the tools of the prompt");
		}
		AssistantMessage turn = this.script.pollFirst();
		if (turn == null) {
			throw new IllegalStateException("The model was asked for turn " + this.prompts.size()
					+ ", which was not scripted: script it with callsTool(...) or answers(...)");
		}
		if (turn.hasToolCalls()) {
			requireOffered(prompt, turn.getToolCalls());
			turn.getToolCalls().forEach((call) -> this.unanswered.add(call.id()));
		}
		return new ChatResponse(List.of(new Generation(turn)));
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> Flux.just(call(prompt)));
	}

	/** {@link ToolCallingChatOptions}: a model whose options are not is given no tools by Spring AI. */
	@Override
	public ChatOptions getOptions() {
		return ToolCallingChatOptions.builder().build();
	}

	/**
	 * What the tools answered to the model's calls, in the order the model read them: the text the model reads
	 * of each call, with the call's id and the tool's name.
	 */
	public synchronized List<ToolResponseMessage.ToolResponse> toolResponsesRead() {
		return List.copyOf(this.toolResponses);
	}

	/** Every prompt the model was sent, in order. */
	public synchronized List<Prompt> prompts() {
		return List.copyOf(this.prompts);
	}

	/**
	 * Fails if turns were scripted that the model was never asked for: the tool loop stopped early, or never
	 * ran (a model called directly rather than through a {@code ChatClient}, a tool that threw).
	 * @throws AssertionError naming the turns left
	 */
	public synchronized void assertScriptUsed() {
		if (!this.script.isEmpty()) {
			throw new AssertionError(this.script.size() + " scripted turn(s) were never asked for: "
					+ this.script.stream().map(ScriptedChatModel::describe).collect(Collectors.joining("; "))
					+ ". The model was asked " + this.prompts.size() + " time(s)");
		}
	}

	/** Forgets the script and what was read, for the next test. */
	public synchronized void reset() {
		this.script.clear();
		this.prompts.clear();
		this.toolResponses.clear();
		this.unanswered.clear();
	}

	private void readToolResponses(Prompt prompt) {
		for (Message message : prompt.getInstructions()) {
			if (message instanceof ToolResponseMessage responses) {
				for (ToolResponseMessage.ToolResponse response : responses.getResponses()) {
					if (this.unanswered.remove(response.id())) {
						this.toolResponses.add(response);
					}
				}
			}
		}
	}

	private static void requireOffered(Prompt prompt, List<AssistantMessage.ToolCall> calls) {
		List<String> offered = (prompt.getOptions() instanceof ToolCallingChatOptions options
				&& options.getToolCallbacks() != null)
						? options.getToolCallbacks().stream().map((callback) -> callback.getToolDefinition().name()).toList()
						: List.of();
		for (AssistantMessage.ToolCall call : calls) {
			if (!offered.contains(call.name())) {
				throw new IllegalStateException("The model is scripted to call " + call.name() + ", but the prompt "
						+ (offered.isEmpty() ? "offers no tools: give them to the prompt (ChatClient's tools(...))"
								: "offers only " + offered + ": name the tool as the prompt offers it"));
			}
		}
	}

	private static String describe(AssistantMessage turn) {
		return turn.hasToolCalls()
				? "calls " + turn.getToolCalls().stream().map((call) -> call.name() + call.arguments()).toList()
				: "answers \"" + turn.getText() + "\"";
	}

}
