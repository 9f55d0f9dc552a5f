package io.idempotency.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The exception classes named by {@code idempotency.unknown-exceptions} when the application is processed
 * ahead of time, registered so that a native image finds them by name at start-up, as the JVM does. A class
 * named only at run time is not known to the image: the start fails, rather than classify its failures as
 * definite. Listed in {@code META-INF/spring/aot.factories}.
 */
final class UnknownExceptionsAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
		if (!beanFactory.containsBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)) {
			return null;
		}
		Environment environment = beanFactory.getBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME,
				Environment.class);
		List<Class<?>> types = new ArrayList<>();
		for (String name : IdempotencyProperties.bind(environment).unknownExceptionsOrEmpty()) {
			try {
				types.add(ClassUtils.forName(name.strip(), beanFactory.getBeanClassLoader()));
			}
			catch (ClassNotFoundException | LinkageError | IllegalArgumentException ex) {
				// Not a class here either: the start names it, on the JVM as in an image.
			}
		}
		if (types.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> types
			.forEach((type) -> generationContext.getRuntimeHints().reflection().registerType(type));
	}

}
