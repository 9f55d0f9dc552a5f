package io.idempotency.ai;

import java.util.List;
import java.util.Objects;

import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A {@link ToolCallingManager} that runs every tool callback of a prompt decorated with
 * {@link IdempotentToolCallback}, so that the model reads, in each tool response, how that call was
 * answered. Give it to a {@code ToolCallingAdvisor} of a hand-built {@code ChatClient}; the Spring Boot
 * starter decorates every {@code ToolCallingManager} bean with it. Tools that Spring AI resolves by name
 * are decorated where they are resolved (the starter decorates {@code ToolCallbackResolver} beans).
 */
public final class IdempotentToolCallingManager implements ToolCallingManager {

	private final ToolCallingManager delegate;

	public IdempotentToolCallingManager(ToolCallingManager delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
	}

	/** The manager, decorated; one already decorated is returned as it is. */
	public static ToolCallingManager of(ToolCallingManager manager) {
		return (manager instanceof IdempotentToolCallingManager) ? manager : new IdempotentToolCallingManager(manager);
	}

	@Override
	public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
		return this.delegate.resolveToolDefinitions(chatOptions);
	}

	@Override
	public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
		return this.delegate.executeToolCalls(withDecoratedCallbacks(prompt), chatResponse);
	}

	private static Prompt withDecoratedCallbacks(Prompt prompt) {
		if (!(prompt.getOptions() instanceof ToolCallingChatOptions options) || options.getToolCallbacks() == null
				|| options.getToolCallbacks().isEmpty()
				|| options.getToolCallbacks().stream().allMatch(IdempotentToolCallback.class::isInstance)) {
			return prompt;
		}
		ToolCallingChatOptions decorated = options.mutate()
			.toolCallbacks(IdempotentToolCallbacks.decorate(options.getToolCallbacks()))
			.build();
		return new Prompt(prompt.getInstructions(), decorated);
	}

}
