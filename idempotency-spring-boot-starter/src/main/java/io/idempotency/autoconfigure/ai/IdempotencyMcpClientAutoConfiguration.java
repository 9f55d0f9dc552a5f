package io.idempotency.autoconfigure.ai;

import io.idempotency.ai.RunMetaConverter;
import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.run.RunResolver;
import io.idempotency.run.RunSource;

import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Spring AI's MCP clients send the current run in the {@code _meta} of each {@code tools/call}
 * ({@link RunMetaConverter}), so that a remote MCP server on this library deduplicates the agent's calls
 * within the run. Spring AI's MCP client auto-configuration uses the converter bean; an application that
 * declares its own keeps it (wrap it in a {@code RunMetaConverter} to send the run too).
 */
@AutoConfiguration(beforeName = "org.springframework.ai.mcp.client.common.autoconfigure.McpToolCallbackAutoConfiguration")
@ConditionalOnClass({ ToolContextToMcpMetaConverter.class, RunMetaConverter.class })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class IdempotencyMcpClientAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ToolContextToMcpMetaConverter idempotencyRunMetaConverter(Environment environment,
			ObjectProvider<RunSource> runSources) {
		IdempotencyProperties properties = IdempotencyProperties.bind(environment);
		return new RunMetaConverter(ToolContextToMcpMetaConverter.defaultConverter(),
				properties.getMcp().getRunIdMetaKey(), new RunResolver(properties.getToolContext().getRunIdKey(),
						properties.getToolContext().getUserIdKey(), runSources.orderedStream().toList()));
	}

}
