package io.idempotency.autoconfigure.ai.mcp;

import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same calls as {@link McpServerRoundTripTest}, to a stateless server: no session between calls, so
 * the run comes from each request's {@code _meta} alone and the user from each HTTP request.
 */
@SpringBootTest(classes = McpServerRoundTripTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STATELESS",
				"spring.ai.mcp.server.name=tickets", "spring.datasource.url=jdbc:h2:mem:mcp-stateless;DB_CLOSE_DELAY=-1" })
class StatelessMcpServerRoundTripTest extends McpServerRoundTripTest {

	@Autowired
	ApplicationContext context;

	@Test
	@Override
	void aToolTakingTheRequestContextRunsOnceAndARepeatIsReplayed() {
		// Spring AI leaves out of a stateless server the @McpTool methods that take a request context.
		assertThat(toolNames()).contains("export_report").doesNotContain("summarise_report");
	}

	@Test
	void theServerIsStateless() {
		assertThat(this.context.getBeansOfType(McpStatelessSyncServer.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(McpSyncServer.class)).isEmpty();
	}

}
