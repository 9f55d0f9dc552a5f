package io.idempotency.ai;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the Spring AI and MCP integration looks up by name, registered where present so that a native image
 * finds it, as the JVM does: Micrometer's context propagation, through which an asynchronous MCP tool's
 * answer reaches the threads of its work ({@code McpAsyncCalls}). Listed in
 * {@code META-INF/spring/aot.factories}.
 */
final class SpringAiRuntimeHints implements RuntimeHintsRegistrar {

	/** Named as {@code McpAsyncCalls} looks it up. */
	static final String CONTEXT_REGISTRY = "io.micrometer.context.ContextRegistry";

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.reflection().registerTypeIfPresent(classLoader, CONTEXT_REGISTRY);
	}

}
