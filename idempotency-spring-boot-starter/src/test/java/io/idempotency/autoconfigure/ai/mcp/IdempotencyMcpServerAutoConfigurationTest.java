package io.idempotency.autoconfigure.ai.mcp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.idempotency.ai.IdempotentMcpTools;
import io.idempotency.autoconfigure.ai.IdempotencyMcpServerAutoConfiguration;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Every tool specification an MCP server is given is decorated, stateful or stateless, alone or in a list. */
class IdempotencyMcpServerAutoConfigurationTest {

	private static final AtomicReference<Run> seen = new AtomicReference<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyMcpServerAutoConfiguration.class))
		.withUserConfiguration(Specifications.class);

	@Test
	void theRunComesFromTheConfiguredMetaEntryForEveryKindOfSpecification() {
		this.runner.withPropertyValues("idempotency.mcp.run-id-meta-key=com.example/run").run((context) -> {
			CallToolRequest request = new CallToolRequest("t", Map.of(), Map.of("com.example/run", "r-7"));

			seen.set(null);
			context.getBean("single", McpServerFeatures.SyncToolSpecification.class).callHandler().apply(null, request);
			assertThat(seen.get()).isEqualTo(new Run("r-7", null));

			seen.set(null);
			@SuppressWarnings("unchecked")
			List<McpStatelessServerFeatures.SyncToolSpecification> stateless = context.getBean("statelessList", List.class);
			stateless.get(0).callHandler().apply(null, request);
			assertThat(seen.get()).isEqualTo(new Run("r-7", null));

			seen.set(null);
			CallToolRequest defaultKey = new CallToolRequest("t", Map.of(), Map.of(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, "r-8"));
			context.getBean("single", McpServerFeatures.SyncToolSpecification.class).callHandler().apply(null, defaultKey);
			assertThat(seen.get()).as("only the configured entry names the run").isNull();
		});
	}

	@Test
	void aBlankRunIdIsRefusedAndTheToolIsNotCalled() {
		this.runner.run((context) -> {
			seen.set(new Run("untouched", null));
			CallToolResult result = context.getBean("single", McpServerFeatures.SyncToolSpecification.class)
				.callHandler()
				.apply(null, new CallToolRequest("t", Map.of(), Map.of(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, " ")));
			assertThat(result.isError()).isTrue();
			assertThat(new JsonMapper().readTree(((McpSchema.TextContent) result.content().get(0)).text())
				.get("kind")
				.asString()).isEqualTo("refused_invalid_run");
			assertThat(seen.get()).isEqualTo(new Run("untouched", null));
		});
	}

	@Test
	void anotherServersToolsReachedThroughAnMcpClientAreLeftAsTheyAreSoTheServerDoesNotExportThemAgain() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(io.idempotency.autoconfigure.ai.IdempotencySpringAiAutoConfiguration.class))
			.withBean("remoteTools", org.springframework.ai.tool.ToolCallbackProvider.class,
					() -> new org.springframework.ai.mcp.SyncMcpToolCallbackProvider(List.of()))
			.run((context) -> assertThat(context.getBean("remoteTools"))
				.isExactlyInstanceOf(org.springframework.ai.mcp.SyncMcpToolCallbackProvider.class));
	}

	@Test
	void aBlankMetaEntryNameIsAClearError() {
		assertThatIllegalArgumentException().isThrownBy(() -> new IdempotentMcpTools(" ", java.util.Set.of()))
			.withMessageContaining("_meta entry");
	}

	@Test
	void decoratingTwiceDecoratesOnce() {
		IdempotentMcpTools tools = new IdempotentMcpTools(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, java.util.Set.of("t"));
		McpServerFeatures.SyncToolSpecification once = tools.decorate(Specifications.spec());
		assertThat(tools.decorate(once)).isSameAs(once);
		assertThat(once.tool().annotations().idempotentHint()).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	static class Specifications {

		static McpServerFeatures.SyncToolSpecification spec() {
			return new McpServerFeatures.SyncToolSpecification(tool(), (exchange, request) -> record());
		}

		private static McpSchema.Tool tool() {
			return new McpSchema.Tool("t", null, null, Map.of("type", "object"), null, null, null, null);
		}

		private static CallToolResult record() {
			seen.set(RunContext.current().orElse(null));
			return CallToolResult.builder().content(List.of(McpSchema.TextContent.builder("ok").build())).build();
		}

		@Bean
		McpServerFeatures.SyncToolSpecification single() {
			return spec();
		}

		@Bean
		List<McpStatelessServerFeatures.SyncToolSpecification> statelessList() {
			return List.of(new McpStatelessServerFeatures.SyncToolSpecification(tool(), (context, request) -> record()));
		}

	}

}
