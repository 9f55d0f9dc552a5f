package io.idempotency.autoconfigure;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With {@code idempotency.enabled=false}, an explicit choice: the application's idempotent functions run as
 * if they were not idempotent, as its annotated tools do, so that an application that calls them through
 * {@link IdempotentCalls} still starts. Nothing derives a key: a tool body finds no
 * {@link io.idempotency.IdempotentInvocation} ({@code find()} is empty), since nothing deduplicates the call
 * and no reconciler asks about it later.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "idempotency.enabled", havingValue = false)
public class IdempotencyDisabledAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static IdempotentCalls idempotentCalls() {
		return new UndeduplicatedCalls();
	}

	/** Runs each body: nothing is claimed, recorded or checked. */
	static final class UndeduplicatedCalls implements IdempotentCalls {

		@Override
		public <T> T call(IdempotentFunction<T> function, Map<String, ?> arguments, Supplier<? extends T> body) {
			return body.get();
		}

		@Override
		public <T> T call(IdempotentFunction<T> function, String argumentsJson, Supplier<? extends T> body) {
			return body.get();
		}

		@Override
		public <T> T call(IdempotentFunction<T> function, String argumentsJson, Map<String, ?> toolContext,
				Supplier<? extends T> body) {
			return body.get();
		}

		@Override
		public <T> CompletionStage<T> callAsync(IdempotentFunction<T> function, Map<String, ?> arguments,
				Supplier<? extends CompletionStage<? extends T>> body, Executor recording) {
			return body.get().thenApply(Function.<T>identity());
		}

		@Override
		public void register(IdempotentFunction<?> function) {
		}

	}

}
