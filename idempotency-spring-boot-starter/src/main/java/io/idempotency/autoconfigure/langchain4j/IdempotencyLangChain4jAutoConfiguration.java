package io.idempotency.autoconfigure.langchain4j;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import io.idempotency.IdempotentTool;
import io.idempotency.langchain4j.IdempotentLangChain4jTools;
import dev.langchain4j.service.tool.ToolProvider;

import org.springframework.beans.BeansException;
import org.springframework.beans.MutablePropertyValues;
import org.springframework.beans.PropertyValue;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.RuntimeBeanReference;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.ManagedList;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * LangChain4j's Spring Boot integration: an AI service declared with {@code @AiService} takes the
 * {@code @Tool} beans that have idempotent tools from a tool provider of {@link IdempotentLangChain4jTools},
 * instead of as plain tool objects, so that each call runs in the AI service invocation's run and the model
 * reads how it was answered. A tool provider the AI service already had keeps its tools.
 */
@AutoConfiguration(afterName = "dev.langchain4j.spring.LangChain4jAutoConfig")
@ConditionalOnClass(name = { "dev.langchain4j.service.spring.AiService",
		"io.idempotency.langchain4j.IdempotentLangChain4jTools" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class IdempotencyLangChain4jAutoConfiguration {

	@Bean
	static BeanFactoryPostProcessor idempotencyAiServiceTools() {
		return new AiServiceTools();
	}

	/**
	 * Rewrites the definition of each AI service that LangChain4j's {@code AiServicesAutoConfig} registered
	 * (its own bean factory post-processor, imported by {@code LangChain4jAutoConfig}, which this
	 * configuration comes after): its tool beans with idempotent tools move to a tool provider. Not ordered,
	 * as that post-processor is not: unordered ones run in the order they were registered, so this one last.
	 */
	static final class AiServiceTools implements BeanFactoryPostProcessor {

		static final String AI_SERVICE_FACTORY = "dev.langchain4j.service.spring.AiServiceFactory";

		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) throws BeansException {
			if (!(beanFactory instanceof BeanDefinitionRegistry registry)) {
				return;
			}
			for (String aiService : beanFactory.getBeanDefinitionNames()) {
				BeanDefinition definition = beanFactory.getBeanDefinition(aiService);
				if (!AI_SERVICE_FACTORY.equals(definition.getBeanClassName())) {
					continue;
				}
				MutablePropertyValues properties = definition.getPropertyValues();
				PropertyValue tools = properties.getPropertyValue("tools");
				if (tools == null || !(tools.getValue() instanceof List<?> toolBeans)) {
					continue;
				}
				List<Object> kept = new ManagedList<>();
				List<String> idempotent = new ArrayList<>();
				for (Object tool : toolBeans) {
					if (tool instanceof RuntimeBeanReference reference && hasIdempotentTools(beanFactory, reference)) {
						idempotent.add(reference.getBeanName());
					}
					else {
						kept.add(tool);
					}
				}
				if (idempotent.isEmpty()) {
					continue;
				}
				Object others = properties.get("toolProvider");
				String othersName = (others instanceof RuntimeBeanReference reference) ? reference.getBeanName() : null;
				String providerName = aiService + ".idempotentTools";
				if (!registry.containsBeanDefinition(providerName)) {
					registry.registerBeanDefinition(providerName, toolProvider(idempotent, othersName));
				}
				properties.add("tools", kept);
				properties.add("toolProvider", new RuntimeBeanReference(providerName));
			}
		}

		/**
		 * The definition of the AI service's tool provider: made by a factory method from bean references, so
		 * that Spring AOT generates its code (a definition with an instance supplier cannot be processed ahead
		 * of time). Where it was generated, this post-processor runs again at start-up and finds it there.
		 */
		private static RootBeanDefinition toolProvider(List<String> toolBeans, String othersName) {
			RootBeanDefinition provider = new RootBeanDefinition(AiServiceTools.class);
			provider.setFactoryMethodName((othersName != null) ? "toolProviderWith" : "toolProvider");
			provider.setTargetType(ToolProvider.class);
			List<Object> tools = new ManagedList<>();
			toolBeans.forEach((name) -> tools.add(new RuntimeBeanReference(name)));
			provider.getConstructorArgumentValues().addIndexedArgumentValue(0, tools);
			if (othersName != null) {
				provider.getConstructorArgumentValues().addIndexedArgumentValue(1, new RuntimeBeanReference(othersName));
			}
			provider.setAutowireCandidate(false);
			provider.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			return provider;
		}

		/** The tool provider of an AI service's beans with idempotent tools. */
		static ToolProvider toolProvider(List<Object> toolBeans) {
			return IdempotentLangChain4jTools.toolProvider(null, toolBeans.toArray());
		}

		/** The tool provider of an AI service's beans with idempotent tools, and of the one it had. */
		static ToolProvider toolProviderWith(List<Object> toolBeans, ToolProvider others) {
			return IdempotentLangChain4jTools.toolProvider(others, toolBeans.toArray());
		}

		private static boolean hasIdempotentTools(ConfigurableListableBeanFactory beanFactory,
				RuntimeBeanReference reference) {
			Class<?> type = beanFactory.getType(reference.getBeanName(), false);
			if (type == null) {
				return false;
			}
			boolean[] found = { false };
			ReflectionUtils.doWithMethods(ClassUtils.getUserClass(type), (Method method) -> found[0] = true,
					(Method method) -> !found[0] && AnnotatedElementUtils.hasAnnotation(method, IdempotentTool.class));
			return found[0];
		}

	}

}
