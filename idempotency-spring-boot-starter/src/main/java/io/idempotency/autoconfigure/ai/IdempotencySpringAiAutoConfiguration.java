package io.idempotency.autoconfigure.ai;

import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import org.springframework.ai.model.tool.ToolCallingManager;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Spring AI: every {@link ToolCallingManager} bean is decorated so that the model reads, in the tool
 * response of a replayed call, that it was replayed. (The run itself comes from the {@code ToolContext},
 * which the core reads.)
 */
@AutoConfiguration(after = IdempotentToolsAutoConfiguration.class)
@ConditionalOnClass(ToolCallingManager.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class IdempotencySpringAiAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ToolCallJournal idempotencyToolCallJournal() {
		return new ToolCallJournal();
	}

	@Bean
	static BeanPostProcessor idempotencyToolCallingManagerDecorator(ObjectProvider<ToolCallJournal> journal) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
				if (bean instanceof ToolCallingManager manager && !(bean instanceof ReplayNoticeToolCallingManager)) {
					return new ReplayNoticeToolCallingManager(manager, journal.getObject());
				}
				return bean;
			}

		};
	}

}
