package io.idempotency.autoconfigure.ai;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.ai.IdempotentMcpTools;
import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.run.Run;
import io.idempotency.run.RunSource;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * MCP servers built by Spring AI (synchronous or asynchronous, stateful or stateless): every tool
 * specification the server is given, from tool callbacks or {@code @McpTool} methods, is decorated by
 * {@link IdempotentMcpTools}, so
 * that a {@code tools/call} names its run in {@code _meta}, a replay says so, and idempotent tools advertise
 * {@code idempotentHint}. In a servlet application, the request's authenticated user is the user of a
 * {@code _meta} run, so that a client never reads another user's row by presenting its run id. A call without a
 * {@code _meta} run runs in the run of its request (its {@code Idempotency-Key} header, or another
 * {@code RunSource}'s), found where the request is received, on an asynchronous server too.
 */
@AutoConfiguration
@ConditionalOnClass({ McpServerFeatures.class, IdempotentMcpTools.class })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class IdempotencyMcpServerAutoConfiguration {

	@Bean
	static BeanPostProcessor idempotencyMcpToolDecorator() {
		return new McpToolDecorator();
	}

	private static final class McpToolDecorator implements BeanPostProcessor, BeanFactoryAware, EnvironmentAware {

		private ConfigurableListableBeanFactory beanFactory;

		private Environment environment;

		private Set<String> annotatedToolNames;

		private Set<String> functionNames = Set.of();

		private Supplier<String> caller;

		private RunSource requestRun;

		private IdempotentMcpTools tools;

		@Override
		public void setBeanFactory(BeanFactory beanFactory) {
			this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
		}

		@Override
		public void setEnvironment(Environment environment) {
			this.environment = environment;
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
			if (isTool(bean)) {
				return decorate(bean);
			}
			if (bean instanceof List<?> list && list.stream().anyMatch(McpToolDecorator::isTool)) {
				return list.stream().map(this::decorate).toList();
			}
			return bean;
		}

		private Object decorate(Object element) {
			IdempotentMcpTools tools = tools();
			if (element instanceof McpServerFeatures.SyncToolSpecification tool) {
				return tools.decorate(tool);
			}
			if (element instanceof McpStatelessServerFeatures.SyncToolSpecification tool) {
				return tools.decorate(tool);
			}
			if (element instanceof McpServerFeatures.AsyncToolSpecification tool) {
				return tools.decorate(tool);
			}
			if (element instanceof McpStatelessServerFeatures.AsyncToolSpecification tool) {
				return tools.decorate(tool);
			}
			return element;
		}

		private static boolean isTool(Object element) {
			return element instanceof McpServerFeatures.SyncToolSpecification
					|| element instanceof McpStatelessServerFeatures.SyncToolSpecification
					|| element instanceof McpServerFeatures.AsyncToolSpecification
					|| element instanceof McpStatelessServerFeatures.AsyncToolSpecification;
		}

		/** In a servlet application, the request's authenticated user: the user of a {@code _meta} run. */
		private Supplier<String> caller() {
			ClassLoader classLoader = getClass().getClassLoader();
			for (String required : AuthenticatedCaller.REQUIRED_CLASSES) {
				if (!ClassUtils.isPresent(required, classLoader)) {
					return () -> null;
				}
			}
			return new AuthenticatedCaller();
		}

		/**
		 * The run of the request being served, from the application's run sources (the request's
		 * {@code Idempotency-Key} header among them), looked up at the first call: asked on the request's thread,
		 * for a call without a {@code _meta} run, so that an asynchronous server's tool runs in it too.
		 */
		private RunSource requestRun() {
			ObjectProvider<RunSource> sources = this.beanFactory.getBeanProvider(RunSource.class);
			SingletonSupplier<List<RunSource>> found = SingletonSupplier.of(() -> sources.orderedStream().toList());
			return () -> {
				for (RunSource source : found.obtain()) {
					Optional<Run> run = source.currentRun();
					if (run.isPresent()) {
						return run;
					}
				}
				return Optional.empty();
			};
		}

		/**
		 * The decorator of the tools in hand: the annotated tools' names are read once, at the first tool, when
		 * every bean definition is known; the functions' names as registered so far, which includes those of
		 * the tool callbacks the server's tools were made from.
		 */
		private IdempotentMcpTools tools() {
			if (this.annotatedToolNames == null) {
				this.annotatedToolNames = IdempotentToolRegistry.exposedToolNames(this.beanFactory);
				this.caller = caller();
				this.requestRun = requestRun();
			}
			IdempotentToolRegistry registry = this.beanFactory.getBeanProvider(IdempotentToolRegistry.class)
				.getIfAvailable();
			Set<String> functionNames = (registry != null) ? registry.functionNames() : Set.of();
			if (this.tools == null || !this.functionNames.equals(functionNames)) {
				Set<String> names = new HashSet<>(this.annotatedToolNames);
				names.addAll(functionNames);
				this.functionNames = functionNames;
				this.tools = new IdempotentMcpTools(IdempotencyProperties.bind(this.environment).getMcp().getRunIdMetaKey(),
						names, this.caller, this.requestRun);
			}
			return this.tools;
		}

	}

}
