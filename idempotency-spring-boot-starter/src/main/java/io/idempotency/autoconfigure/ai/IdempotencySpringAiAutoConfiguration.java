package io.idempotency.autoconfigure.ai;

import io.idempotency.ai.IdempotentRunAdvisor;
import io.idempotency.ai.IdempotentToolCallback;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.ai.IdempotentToolCallingManager;
import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.run.RunSource;
import org.springframework.ai.chat.client.ChatClientBuilderCustomizer;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Spring AI: the model reads, in the response to each tool call, how that call was answered (replayed,
 * in progress, previously failed), on every path a call takes. Every {@link ToolCallingManager},
 * {@link ToolCallbackResolver}, {@link ToolCallbackProvider} and {@link ToolCallback} bean is decorated
 * (see {@link IdempotentToolCallback}), which covers Spring AI's tool loop with the auto-configured
 * {@code ChatClient.Builder}, tools resolved by name, and MCP servers built from callback beans. (The run
 * itself comes from the {@code ToolContext}, which the core reads.)
 */
@AutoConfiguration(after = IdempotentToolsAutoConfiguration.class)
@ConditionalOnClass({ ToolCallingManager.class, IdempotentToolCallback.class })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class IdempotencySpringAiAutoConfiguration {

	@Bean
	static BeanPostProcessor idempotencyToolCallbackDecorator() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
				if (isMcpClientTool(bean)) {
					// Another server's tools, called through an MCP client: nothing of this application's, and
					// an MCP server here must still recognise them so as not to export them again.
					return bean;
				}
				if (bean instanceof ToolCallingManager manager) {
					return IdempotentToolCallingManager.of(manager);
				}
				if (bean instanceof ToolCallbackResolver resolver && !(bean instanceof DecoratedResolver)) {
					return new DecoratedResolver(resolver);
				}
				if (bean instanceof ToolCallbackProvider provider) {
					return IdempotentToolCallbacks.decorate(provider);
				}
				if (bean instanceof ToolCallback callback) {
					return IdempotentToolCallback.of(callback);
				}
				return bean;
			}

		};
	}

	private static boolean isMcpClientTool(Object bean) {
		String type = bean.getClass().getName();
		return type.startsWith("org.springframework.ai.mcp.") && (bean instanceof ToolCallback || bean instanceof ToolCallbackProvider);
	}

	/** A run per {@code ChatClient} call, for every client made from the auto-configured builder. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.ai.chat.client.ChatClientBuilderCustomizer")
	@ConditionalOnBooleanProperty(name = "idempotency.spring-ai.run-per-prompt", matchIfMissing = true)
	static class RunPerPrompt {

		@Bean
		@ConditionalOnMissingBean
		IdempotentRunAdvisor idempotentRunAdvisor(Environment environment, ObjectProvider<RunSource> runSources) {
			IdempotencyProperties properties = IdempotencyProperties.bind(environment);
			return new IdempotentRunAdvisor(properties.getToolContext().getRunIdKey(),
					properties.getToolContext().getUserIdKey(), runSources.orderedStream().toList());
		}

		@Bean
		ChatClientBuilderCustomizer idempotentRunChatClientBuilderCustomizer(IdempotentRunAdvisor advisor) {
			return (builder) -> builder.defaultAdvisors(advisor);
		}

	}

	/** Tools resolved by name, decorated. */
	private record DecoratedResolver(ToolCallbackResolver delegate) implements ToolCallbackResolver {

		@Override
		public ToolCallback resolve(String toolName) {
			ToolCallback callback = this.delegate.resolve(toolName);
			return (callback != null) ? IdempotentToolCallback.of(callback) : null;
		}

	}

}
