package io.idempotency.autoconfigure.langchain4j;

import io.idempotency.autoconfigure.langchain4j.AiServiceToolLoopTest.Application;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.io.InputStreamSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose {@code @AiService} calls idempotent tools can be processed by Spring AOT: the tool
 * provider the starter gives the AI service is defined by a factory method, whose code AOT generates. (It
 * cannot then start in AOT mode: LangChain4j's Spring Boot integration scans for AI services again at
 * start-up, and refuses the definitions generated for them.)
 */
class AiServiceAheadOfTimeTest {

	@Test
	void anAiServicesIdempotentToolProviderIsGeneratedAheadOfTime() throws Exception {
		TestGenerationContext generation = new TestGenerationContext(Application.class);
		AnnotationConfigApplicationContext processed = new AnnotationConfigApplicationContext();
		processed.register(Application.class);
		TestPropertyValues.of("spring.datasource.url=jdbc:h2:mem:ai-service-aot;DB_CLOSE_DELAY=-1").applyTo(processed);

		new ApplicationContextAotGenerator().processAheadOfTime(processed, generation);
		generation.writeGeneratedContent();

		StringBuilder sources = new StringBuilder();
		for (InputStreamSource source : generation.getGeneratedFiles().getGeneratedFiles(Kind.SOURCE).values()) {
			sources.append(new String(source.getInputStream().readAllBytes()));
		}
		assertThat(sources).contains("'aiServiceToolLoopTest.Assistant.idempotentTools'")
			.contains("AiServiceTools.toolProviderWith(");
	}

}
