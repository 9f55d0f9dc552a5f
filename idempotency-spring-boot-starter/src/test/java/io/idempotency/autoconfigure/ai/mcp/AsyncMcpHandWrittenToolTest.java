package io.idempotency.autoconfigure.ai.mcp;

import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same calls as {@link McpHandWrittenToolTest}, to an asynchronous server, whose hand-written tool's
 * handler returns a {@code Mono}: claimed when subscribed, recorded when it completes.
 */
@SpringBootTest(classes = McpHandWrittenToolTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.type=ASYNC", "spring.ai.mcp.server.name=refunds",
				"spring.datasource.url=jdbc:h2:mem:mcp-hand-written-async;DB_CLOSE_DELAY=-1" })
class AsyncMcpHandWrittenToolTest extends McpHandWrittenToolTest {

	@Autowired
	ApplicationContext context;

	@Test
	void theServerIsAsynchronous() {
		assertThat(this.context.getBeansOfType(McpAsyncServer.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(McpSyncServer.class)).isEmpty();
	}

}
