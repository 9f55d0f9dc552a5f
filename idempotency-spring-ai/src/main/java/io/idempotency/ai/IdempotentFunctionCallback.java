package io.idempotency.ai;

import java.util.Objects;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * A tool callback called as an idempotent function: its key from its name, the run and its JSON input, its
 * run from the tool context where it names one. {@link IdempotentToolCallback} decorates it, to tell the model
 * how each call was answered.
 */
final class IdempotentFunctionCallback implements ToolCallback {

	private final ToolCallback delegate;

	private final IdempotentFunction<String> function;

	private final IdempotentCalls calls;

	IdempotentFunctionCallback(ToolCallback delegate, IdempotentFunction<String> function, IdempotentCalls calls) {
		this.delegate = Objects.requireNonNull(delegate, "callback");
		this.function = Objects.requireNonNull(function, "function");
		this.calls = Objects.requireNonNull(calls, "calls");
		String name = delegate.getToolDefinition().name();
		if (!name.equals(function.name())) {
			throw new IllegalArgumentException("Function '" + function.name() + "' cannot be the idempotency of tool"
					+ " callback '" + name + "': the model calls the tool by the callback's name, and its calls are told"
					+ " their answers by it. Name the function '" + name + "'");
		}
		if (!String.class.equals(function.resultType().resolve())) {
			throw new IllegalArgumentException("Function '" + function.name() + "' returns " + function.resultType()
					+ ", but a tool callback returns the text the model reads: define it with String.class");
		}
		calls.register(function);
	}

	@Override
	public ToolDefinition getToolDefinition() {
		return this.delegate.getToolDefinition();
	}

	@Override
	public ToolMetadata getToolMetadata() {
		return this.delegate.getToolMetadata();
	}

	@Override
	public String call(String toolInput) {
		return this.calls.call(this.function, toolInput, () -> this.delegate.call(toolInput));
	}

	@Override
	public String call(String toolInput, ToolContext toolContext) {
		return this.calls.call(this.function, toolInput, (toolContext != null) ? toolContext.getContext() : null,
				() -> this.delegate.call(toolInput, toolContext));
	}

	@Override
	public String toString() {
		return "IdempotentFunctionCallback[" + this.function.name() + ": " + this.delegate + "]";
	}

}
