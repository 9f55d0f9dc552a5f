package io.idempotency.advice;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;

/** The calls of idempotent functions, through the flow of the annotated tools' advice. */
final class FunctionCalls implements IdempotentCalls {

	private final IdempotentToolRegistry registry;

	private final Supplier<IdempotentToolInterceptor> interceptor;

	FunctionCalls(IdempotentToolRegistry registry, Supplier<IdempotentToolInterceptor> interceptor) {
		this.registry = registry;
		this.interceptor = interceptor;
	}

	@Override
	public <T> T call(IdempotentFunction<T> function, Map<String, ?> arguments, Supplier<? extends T> body) {
		return call(function, body, new ToolCall.Called(function, arguments, false, null, body));
	}

	@Override
	public <T> T call(IdempotentFunction<T> function, String argumentsJson, Supplier<? extends T> body) {
		return call(function, body, new ToolCall.Called(function, argumentsJson, true, null, body));
	}

	@Override
	public <T> T call(IdempotentFunction<T> function, String argumentsJson, Map<String, ?> toolContext,
			Supplier<? extends T> body) {
		return call(function, body, new ToolCall.Called(function, argumentsJson, true, toolContext, body));
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> CompletionStage<T> callAsync(IdempotentFunction<T> function, Map<String, ?> arguments,
			Supplier<? extends CompletionStage<? extends T>> body, Executor recording) {
		Objects.requireNonNull(function, "function");
		Objects.requireNonNull(body, "body");
		Objects.requireNonNull(recording, "recording");
		ToolCall call = new ToolCall.Called(function, arguments, false, null, body);
		ToolDescriptor tool = this.registry.function(function);
		return (CompletionStage<T>) this.interceptor.get().calls().callAsync(tool, call, recording);
	}

	@Override
	public void register(IdempotentFunction<?> function) {
		Objects.requireNonNull(function, "function");
		this.registry.register(function, "registered with IdempotentCalls.register");
	}

	@SuppressWarnings("unchecked")
	private <T> T call(IdempotentFunction<T> function, Supplier<? extends T> body, ToolCall call) {
		Objects.requireNonNull(function, "function");
		Objects.requireNonNull(body, "body");
		ToolDescriptor tool = this.registry.function(function);
		try {
			return (T) this.interceptor.get().calls().call(tool, call);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// A Supplier throws no checked exception; nothing on the way does either.
			throw new UndeclaredThrowableException(ex);
		}
	}

}
