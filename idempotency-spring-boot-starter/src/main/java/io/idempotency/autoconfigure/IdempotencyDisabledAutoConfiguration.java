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
import tools.jackson.databind.json.JsonMapper;

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
 * one: the application does not start with one declared as a bean, and a call of one made otherwise is refused.
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

		private static final JsonMapper ARGUMENTS = new JsonMapper();

		@Override
		public <T> T call(IdempotentFunction<T> function, Map<String, ?> arguments, Supplier<? extends T> body) {
			return checked(function, arguments, body).get();
		}

		@Override
		public <T> T call(IdempotentFunction<T> function, String argumentsJson, Supplier<? extends T> body) {
			return checked(function, json(argumentsJson), body).get();
		}

		@Override
		public <T> T call(IdempotentFunction<T> function, String argumentsJson, Map<String, ?> toolContext,
				Supplier<? extends T> body) {
			return checked(function, json(argumentsJson), body).get();
		}

		@Override
		public <T> CompletionStage<T> callAsync(IdempotentFunction<T> function, Map<String, ?> arguments,
				Supplier<? extends CompletionStage<? extends T>> body, Executor recording) {
			return checked(function, arguments, body).get().thenApply(Function.<T>identity());
		}

		@SuppressWarnings("unchecked")
		private static Map<String, Object> json(String arguments) {
			return (arguments != null) ? ARGUMENTS.readValue(arguments, Map.class) : Map.of();
		}

		@Override
		public void register(IdempotentFunction<?> function) {
		}

		/**
		 * The body of a call that needs no approval (its function needs none, or its approval rule says this call
		 * does not); a call that does is refused, and nothing runs.
		 */
		private static <B> B checked(IdempotentFunction<?> function, Map<String, ?> arguments, B body) {
			boolean needed = function.requiresApproval();
			if (!needed && function.approvalRule() != null) {
				try {
					needed = function.approvalRule().ask(new java.util.LinkedHashMap<>(arguments)).required();
				}
				catch (RuntimeException ex) {
					throw ex;
				}
				catch (Exception ex) {
					throw new IllegalStateException("The approval rule of function '" + function.name() + "' failed", ex);
				}
			}
			if (needed) {
				throw new IllegalStateException(switchedOff("function '" + function.name() + "'"));
			}
			return body;
		}

	}

}
