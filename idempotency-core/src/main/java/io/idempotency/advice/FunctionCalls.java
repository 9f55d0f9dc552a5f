package io.idempotency.advice;

import java.lang.reflect.UndeclaredThrowableException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.key.CanonicalCall;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.run.Run;
import io.idempotency.run.RunResolver;

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
		return call(function, body, null,
				(runId, max) -> IdempotencyKeys.canonicalise(function.name(), arguments, runId, max,
						function.keyArguments()));
	}

	@Override
	public <T> T call(IdempotentFunction<T> function, String argumentsJson, Supplier<? extends T> body) {
		return call(function, body, null,
				(runId, max) -> IdempotencyKeys.canonicalise(function.name(), argumentsJson, runId, max,
						function.keyArguments()));
	}

	@Override
	public <T> T call(IdempotentFunction<T> function, String argumentsJson, Map<String, ?> toolContext,
			Supplier<? extends T> body) {
		return call(function, body, toolContext,
				(runId, max) -> IdempotencyKeys.canonicalise(function.name(), argumentsJson, runId, max,
						function.keyArguments()));
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> CompletionStage<T> callAsync(IdempotentFunction<T> function, Map<String, ?> arguments,
			Supplier<? extends CompletionStage<? extends T>> body, Executor recording) {
		Objects.requireNonNull(function, "function");
		Objects.requireNonNull(body, "body");
		Objects.requireNonNull(recording, "recording");
		ToolDescriptor tool = this.registry.function(function);
		CompletionStage<Object> outcome = this.interceptor.get()
			.callAsync(tool, toolCall(body, null, (runId, max) -> IdempotencyKeys.canonicalise(function.name(), arguments,
					runId, max, function.keyArguments())), recording);
		return (CompletionStage<T>) outcome;
	}

	@Override
	public void register(IdempotentFunction<?> function) {
		Objects.requireNonNull(function, "function");
		this.registry.register(function, "registered with IdempotentCalls.register");
	}

	private interface Keying {

		CanonicalCall canonicalise(String runId, long maxArgumentsBytes);

	}

	@SuppressWarnings("unchecked")
	private <T> T call(IdempotentFunction<T> function, Supplier<? extends T> body, Map<String, ?> toolContext,
			Keying keying) {
		Objects.requireNonNull(function, "function");
		Objects.requireNonNull(body, "body");
		ToolDescriptor tool = this.registry.function(function);
		try {
			return (T) this.interceptor.get().call(tool, toolCall(body, toolContext, keying));
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			// A Supplier throws no checked exception; nothing on the way does either.
			throw new UndeclaredThrowableException(ex);
		}
	}

	private static ToolCall toolCall(Supplier<?> body, Map<String, ?> toolContext, Keying keying) {
		return new ToolCall() {

			@Override
			public Optional<Run> run(RunResolver runs) {
				return (toolContext != null) ? runs.resolve(toolContext) : runs.resolve(new Object[0]);
			}

			@Override
			public CanonicalCall canonicalise(String runId, long maxArgumentsBytes) {
				return keying.canonicalise(runId, maxArgumentsBytes);
			}

			@Override
			public Object proceed() {
				return body.get();
			}

		};
	}

}
