package io.idempotency.autoconfigure.ai.mcp;

import java.time.Duration;
import java.util.Map;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import tools.jackson.databind.json.JsonMapper;
import io.modelcontextprotocol.server.McpSyncServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The same calls as {@link McpHandWrittenToolTest}, to an asynchronous server, whose hand-written tool's
 * handler returns a {@code Mono}: claimed when subscribed, recorded when it completes.
 */
@SpringBootTest(classes = McpHandWrittenToolTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.type=ASYNC", "spring.ai.mcp.server.name=refunds",
				"spring.datasource.url=jdbc:h2:mem:mcp-hand-written-async;DB_CLOSE_DELAY=-1" })
class AsyncMcpHandWrittenToolTest extends McpHandWrittenToolTest {

	private static final JsonMapper JSON = new JsonMapper();

	@Autowired
	ApplicationContext context;

	@Test
	void aCallWhoseClientGaveUpIsRecordedWhenItsMonoCompletesAndARepeatReadsItsResult() {
		Map<String, Object> run = Map.of("io.idempotency/runId", "held-run-1");
		McpSyncClient impatient = McpClient
			.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + this.port).build())
			.requestTimeout(Duration.ofMillis(300))
			.build();
		try {
			impatient.initialize();
			assertThatThrownBy(() -> impatient.callTool(new CallToolRequest("hold_refund", Map.of("order", "H-1"), run)))
				.as("the client gives up before the provider answers");
		}
		finally {
			impatient.closeGracefully();
		}
		JdbcTemplate ledger = this.jdbc;
		assertThat(ledger.queryForObject("SELECT status FROM tool_audit WHERE tool = 'hold_refund'", String.class))
			.isEqualTo("attempting");

		Server.providerAnswers.countDown();
		await().atMost(Duration.ofSeconds(30))
			.until(() -> ledger.queryForObject("SELECT status FROM tool_audit WHERE tool = 'hold_refund'", String.class),
					"succeeded"::equals);
		CallToolResult repeat = this.client.callTool(new CallToolRequest("hold_refund", Map.of("order", "H-1"), run));

		assertThat(JSON.readTree(((McpSchema.TextContent) repeat.content().get(0)).text()).get("kind").asString())
			.isEqualTo("replayed");
		assertThat(ledger.queryForObject("SELECT COUNT(*) FROM refunds WHERE order_id = 'H-1'", Integer.class)).isEqualTo(1);
	}

	@Test
	void theServerIsAsynchronous() {
		assertThat(this.context.getBeansOfType(McpAsyncServer.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(McpSyncServer.class)).isEmpty();
	}

}
