package io.idempotency.advice;

import io.idempotency.EnableIdempotentTools;
import java.util.Map;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/** Registers what {@link EnableIdempotentTools} turns on: imported by it, not used directly. */
public final class IdempotentToolsRegistrar implements ImportBeanDefinitionRegistrar {

	@Override
	public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
		AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
		Map<String, Object> attributes = metadata.getAnnotationAttributes(EnableIdempotentTools.class.getName());
		if (attributes != null && Boolean.TRUE.equals(attributes.get("proxyTargetClass"))) {
			AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
		}
		if (!registry.containsBeanDefinition(IdempotentToolsConfiguration.ADVISOR)) {
			RootBeanDefinition configuration = new RootBeanDefinition(IdempotentToolsConfiguration.class);
			configuration.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
			registry.registerBeanDefinition(IdempotentToolsConfiguration.class.getName(), configuration);
		}
	}

}
