package io.idempotency.autoconfigure;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * With {@code idempotency.enabled=false}, an explicit choice: the application's idempotent functions run as
 * if they were not idempotent, as its annotated tools do, so that an application that calls them through
 * {@link IdempotentCalls} still starts. Nothing derives a key: a tool body finds no
 * {@link io.idempotency.IdempotentInvocation} ({@code find()} is empty), since nothing deduplicates the call
 * and no reconciler asks about it later. A tool or function that needs a person's approval would act without
 * one: the application does not start with one, and such a function registered later is refused.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "idempotency.enabled", havingValue = false)
public class IdempotencyDisabledAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static IdempotentCalls idempotentCalls() {
		return new UndeduplicatedCalls();
	}

	/** Stops the start where a tool needs a person's approval, which nothing would ask for. */
	@Bean
	static SmartInitializingSingleton idempotencyApprovalsSwitchedOff(ConfigurableListableBeanFactory beans) {
		return () -> {
			Set<String> needingApproval = new TreeSet<>();
			for (String name : beans.getBeanDefinitionNames()) {
				Class<?> type = beans.getType(name, false);
				if (type == null) {
					continue;
				}
				if (IdempotentFunction.class.isAssignableFrom(type)) {
					IdempotentFunction<?> function = (IdempotentFunction<?>) beans.getBean(name);
					if (needsApproval(function)) {
						needingApproval.add(function.name());
					}
					continue;
				}
				ReflectionUtils.doWithMethods(ClassUtils.getUserClass(type), (method) -> {
					IdempotentTool tool = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentTool.class);
					if (tool != null && (tool.requiresApproval() || !tool.approval().isBlank())) {
						needingApproval.add(ClassUtils.getShortName(ClassUtils.getUserClass(type)) + "." + method.getName());
					}
				});
			}
			if (!needingApproval.isEmpty()) {
				throw new IllegalStateException(switchedOff(String.join(", ", needingApproval)));
			}
		};
	}

	private static boolean needsApproval(IdempotentFunction<?> function) {
		return function.requiresApproval() || function.approvalRule() != null;
	}

	private static String switchedOff(String tools) {
		return "idempotency.enabled=false, but " + tools + " need a person's approval before they act: switched off,"
				+ " nothing would ask for it, and they would act without one. Enable idempotency, or remove the"
				+ " approval";
	}

	/** Runs each body: nothing is claimed, recorded or checked. */
	static final class UndeduplicatedCalls implements IdempotentCalls {

		@Override
		public <T> T call(IdempotentFunction<T> function, Map<String, ?> arguments, Supplier<? extends T> body) {
			return checked(function, body).get();
		}

		@Override
		public <T> T call(IdempotentFunction<T> function, String argumentsJson, Supplier<? extends T> body) {
			return checked(function, body).get();
		}

		@Override
		public <T> T call(IdempotentFunction<T> function, String argumentsJson, Map<String, ?> toolContext,
				Supplier<? extends T> body) {
			return checked(function, body).get();
		}

		@Override
		public <T> CompletionStage<T> callAsync(IdempotentFunction<T> function, Map<String, ?> arguments,
				Supplier<? extends CompletionStage<? extends T>> body, Executor recording) {
			return checked(function, body).get().thenApply(Function.<T>identity());
		}

		@Override
		public void register(IdempotentFunction<?> function) {
			checked(function, null);
		}

		/** The body of a function that needs no approval; one that does is refused, and nothing runs. */
		private static <B> B checked(IdempotentFunction<?> function, B body) {
			if (needsApproval(function)) {
				throw new IllegalStateException(switchedOff("function '" + function.name() + "'"));
			}
			return body;
		}

	}

}
