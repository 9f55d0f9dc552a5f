package io.idempotency.autoconfigure.ai;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The classes an MCP server looks up by name to find the authenticated user of a {@code _meta} run,
 * registered where present so that a native image finds them, as the JVM does: without them every such
 * run's user would be unknown. Listed in {@code META-INF/spring/aot.factories}.
 */
final class McpCallerRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		for (String name : AuthenticatedCaller.REQUIRED_CLASSES) {
			hints.reflection().registerTypeIfPresent(classLoader, name);
		}
	}

}
