package io.idempotency.autoconfigure.ai.mcp;

import java.util.Map;
import java.util.Optional;

import io.idempotency.ai.RunMetaConverter;
import io.idempotency.autoconfigure.ai.IdempotencyMcpClientAutoConfiguration;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.run.RunSource;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The run an MCP client sends in {@code _meta}: the call's own, under the entry the servers read. */
class IdempotencyMcpClientAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyMcpClientAutoConfiguration.class));

	@Test
	void theRunOfTheCallsToolContextElseTheBoundRunIsSentAndNoneWhenThereIsNone() {
		this.runner.run((context) -> {
			ToolContextToMcpMetaConverter converter = context.getBean(ToolContextToMcpMetaConverter.class);
			assertThat(converter).isInstanceOf(RunMetaConverter.class);

			assertThat(converter.convert(new ToolContext(Map.of("runId", "run-1", "userId", "ada", "tenant", "acme"))))
				.as("the run under its entry; the local user never leaves")
				.containsOnly(Map.entry("io.idempotency/runId", "run-1"), Map.entry("tenant", "acme"));
			assertThat(RunContext.supply(new Run("bound-run", "ada"), () -> converter.convert(new ToolContext(Map.of()))))
				.containsOnly(Map.entry("io.idempotency/runId", "bound-run"));
			assertThat(RunContext.supply(new Run("bound-run", "ada"),
					() -> converter.convert(new ToolContext(Map.of("runId", "run-2")))))
				.as("the call's own tool context first")
				.containsEntry("io.idempotency/runId", "run-2");
			assertThat(converter.convert(new ToolContext(Map.of()))).doesNotContainKey("io.idempotency/runId");
		});
	}

	@Test
	void theRunOfTheApplicationsRunSourceIsSentWhenTheCallNamesNone() {
		this.runner.withBean(RunSource.class, () -> () -> Optional.of(new Run("from-source", "ada"))).run((context) -> {
			ToolContextToMcpMetaConverter converter = context.getBean(ToolContextToMcpMetaConverter.class);

			assertThat(converter.convert(new ToolContext(Map.of())))
				.containsOnly(Map.entry("io.idempotency/runId", "from-source"));
			assertThat(RunContext.supply(new Run("bound-run", "ada"), () -> converter.convert(new ToolContext(Map.of()))))
				.as("a bound run before the sources, as for the application's own tools")
				.containsOnly(Map.entry("io.idempotency/runId", "bound-run"));
		});
	}

	@Test
	void theConfiguredEntriesAreUsedAndAnApplicationsOwnConverterIsKept() {
		this.runner
			.withPropertyValues("idempotency.mcp.run-id-meta-key=acme/run", "idempotency.tool-context.run-id-key=conversation")
			.run((context) -> assertThat(context.getBean(ToolContextToMcpMetaConverter.class)
				.convert(new ToolContext(Map.of("conversation", "c-9"))))
				.containsOnly(Map.entry("acme/run", "c-9")));
		ToolContextToMcpMetaConverter own = ToolContextToMcpMetaConverter.noOp();
		this.runner.withBean(ToolContextToMcpMetaConverter.class, () -> own)
			.run((context) -> assertThat(context.getBean(ToolContextToMcpMetaConverter.class)).isSameAs(own));
	}

}
