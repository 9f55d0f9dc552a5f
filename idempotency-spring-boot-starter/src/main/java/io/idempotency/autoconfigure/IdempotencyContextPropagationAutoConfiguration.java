package io.idempotency.autoconfigure;

import io.idempotency.run.RunContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Hooks;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;

/**
 * Lets the {@link RunContext} binding reach tools that a reactive pipeline runs on other threads, as Spring
 * AI's streaming ({@code ChatClient...stream()}) does: turns on Reactor's automatic context propagation, so
 * that the run bound where a stream is subscribed is bound again on the threads that execute its tools. The
 * same as Spring Boot's {@code spring.reactor.context-propagation=auto}; turn it off with
 * {@code idempotency.reactor-context-propagation=false} and pass the run in the {@code ToolContext} instead.
 */
@AutoConfiguration
@ConditionalOnClass(name = { "reactor.core.publisher.Hooks", "io.micrometer.context.ContextRegistry" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "idempotency.reactor-context-propagation", matchIfMissing = true)
public class IdempotencyContextPropagationAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(IdempotencyContextPropagationAutoConfiguration.class);

	IdempotencyContextPropagationAutoConfiguration() {
		Hooks.enableAutomaticContextPropagation();
		logger.debug("Reactor's automatic context propagation is on, so that streamed tool calls find their run");
	}

}
