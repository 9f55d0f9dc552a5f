package io.idempotency.autoconfigure.langchain4j;

import java.util.Arrays;

import io.idempotency.autoconfigure.langchain4j.AiServiceToolLoopTest.ScriptedModel;
import io.idempotency.autoconfigure.langchain4j.AiServiceToolLoopTest.TicketTools;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.io.DefaultResourceLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application on LangChain4j alone: with neither Spring AI nor the MCP SDK on its class path (the starter
 * brings neither: they are optional dependencies of it and of {@code idempotency-spring-ai}), the starter's
 * Spring AI and MCP parts back off, and the AI service's idempotent tools answer a repeat as they do beside
 * Spring AI.
 */
class WithoutSpringAiTest {

	@Test
	void anAiServicesRepeatIsReplayedWithoutSpringAiOnTheClassPath() {
		// Spring AI's own auto-configurations, which this test's class path holds, stay readable: they back off.
		FilteredClassLoader withoutSpringAi = new FilteredClassLoader((name) -> (name.startsWith("org.springframework.ai.")
				&& !name.contains(".autoconfigure.")) || name.startsWith("io.modelcontextprotocol."));
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
				AiServiceToolLoopTest.Application.class)
			.resourceLoader(new DefaultResourceLoader(withoutSpringAi))
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:without-spring-ai;DB_CLOSE_DELAY=-1")
			.run()) {
			assertThat(Arrays.stream(context.getBeanDefinitionNames())
				.map((name) -> context.getBeanFactory().getType(name))
				.filter((type) -> type != null && (type.getName().startsWith("io.idempotency.ai.")
						|| type.getName().startsWith("io.idempotency.autoconfigure.ai."))))
				.as("the starter's Spring AI and MCP parts")
				.isEmpty();
			AiServiceToolLoopTest.Assistant assistant = context.getBean(AiServiceToolLoopTest.Assistant.class);
			ScriptedModel model = context.getBean(ScriptedModel.class);
			model.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}")
				.callsTool("open_ticket", "{\"issue\":\"seal failure\",\"account\":\"acme\"}")
				.answers("One ticket is open.");

			assistant.chat("Open a ticket for acme: the pump seal failed");

			assertThat(context.getBean(TicketTools.class).opened()).isEqualTo(1);
			assertThat(model.toolResultsRead().get(1)).contains("\"kind\":\"replayed\"");
		}
	}

}
