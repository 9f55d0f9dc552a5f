package io.idempotency.ai;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.run.RunResolver;
import io.idempotency.run.RunSource;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.core.Ordered;

/**
 * Gives each {@code ChatClient} call its own run, unless the application supplies one: a user's request to
 * the agent is one run, so the model's repeated tool calls within it are replayed, and the next request is
 * a new run whose calls execute again.
 *
 * <p>The run is, in this order: the one in the request's {@code ToolContext} (keys {@code runId} and
 * {@code userId}, configurable), the one bound with {@link RunContext}, the first that a {@link RunSource}
 * knows (in a web application, the request's {@code Idempotency-Key} header, so that a client's retry of
 * the same request is the same run), else a new random one. It is put in the {@code ToolContext} and bound
 * with {@code RunContext} for the whole call, the tool loop included; for a stream, it is also written to
 * Reactor's context, so it reaches tools that run on other threads.
 *
 * <p>Its order, {@link #DEFAULT_ORDER}, puts it ahead of Spring AI's {@code ToolCallingAdvisor}.
 */
public final class IdempotentRunAdvisor implements CallAdvisor, StreamAdvisor {

	/** Ahead of {@code ToolCallingAdvisor.DEFAULT_ORDER} ({@code HIGHEST_PRECEDENCE + 300}). */
	public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	private final RunResolver runs;

	/** With the default tool context keys, {@code runId} and {@code userId}, and no run sources. */
	public IdempotentRunAdvisor() {
		this("runId", "userId", List.of());
	}

	/**
	 * @param runIdKey the run id's key in the tool context
	 * @param userIdKey the user id's key in the tool context
	 * @param sources where to look for the run after the tool context and {@code RunContext}
	 */
	public IdempotentRunAdvisor(String runIdKey, String userIdKey, List<RunSource> sources) {
		this.runs = new RunResolver(runIdKey, userIdKey, sources);
	}

	@Override
	public String getName() {
		return "IdempotentRunAdvisor";
	}

	@Override
	public int getOrder() {
		return DEFAULT_ORDER;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		Run run = runOf(request);
		ChatClientRequest withRun = withRun(request, run);
		return RunContext.supply(run, () -> chain.nextCall(withRun));
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		Run run = runOf(request);
		ChatClientRequest withRun = withRun(request, run);
		return RunContext.supply(run, () -> chain.nextStream(withRun))
			.contextWrite(Context.of(RunContext.CONTEXT_KEY, run));
	}

	/** The run of a request, as the class documentation says. */
	Run runOf(ChatClientRequest request) {
		Map<String, Object> toolContext = toolContextOf(request.prompt());
		return this.runs.resolve(toolContext)
			.orElseGet(() -> new Run(UUID.randomUUID().toString(), this.runs.userIdIn(toolContext)));
	}

	private ChatClientRequest withRun(ChatClientRequest request, Run run) {
		if (!(request.prompt().getOptions() instanceof ToolCallingChatOptions options)) {
			return request;
		}
		Map<String, Object> toolContext = new HashMap<>(toolContextOf(request.prompt()));
		toolContext.put(this.runs.runIdKey(), run.runId());
		if (run.userId() != null) {
			toolContext.put(this.runs.userIdKey(), run.userId());
		}
		ToolCallingChatOptions withRun = options.mutate().toolContext(toolContext).build();
		return request.mutate().prompt(new Prompt(request.prompt().getInstructions(), withRun)).build();
	}

	private static Map<String, Object> toolContextOf(Prompt prompt) {
		if (prompt.getOptions() instanceof ToolCallingChatOptions options && options.getToolContext() != null) {
			return options.getToolContext();
		}
		return Map.of();
	}


}
