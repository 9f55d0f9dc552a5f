package io.idempotency.autoconfigure.ai.mcp;

import io.modelcontextprotocol.server.McpStatelessAsyncServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The same calls as {@link McpHandWrittenToolTest}, to a stateless asynchronous server. */
@SpringBootTest(classes = McpHandWrittenToolTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STATELESS",
				"spring.ai.mcp.server.type=ASYNC",
				"spring.ai.mcp.server.name=refunds",
				"spring.datasource.url=jdbc:h2:mem:mcp-hand-written-statelessasync;DB_CLOSE_DELAY=-1" })
class StatelessAsyncMcpHandWrittenToolTest extends McpHandWrittenToolTest {

	@Autowired
	ApplicationContext context;

	@Test
	void theServerIsStateless() {
		assertThat(this.context.getBeansOfType(McpStatelessAsyncServer.class)).hasSize(1);
	}

}
