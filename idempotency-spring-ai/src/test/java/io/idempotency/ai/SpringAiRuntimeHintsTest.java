package io.idempotency.ai;

import io.micrometer.context.ContextRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import static org.assertj.core.api.Assertions.assertThat;

/** The hints of the Spring AI and MCP integration, as Spring AOT finds them in {@code aot.factories}. */
class SpringAiRuntimeHintsTest {

	@Test
	void aNativeImageFindsContextPropagationForAsynchronousMcpToolsByName() {
		RuntimeHints hints = new RuntimeHints();
		AotServices.factories()
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));

		assertThat(RuntimeHintsPredicates.reflection().onType(ContextRegistry.class)).accepts(hints);
	}

}
