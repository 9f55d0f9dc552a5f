package io.idempotency.autoconfigure.ai.mcp;

import java.util.Map;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MCP server of {@link McpServerRoundTripTest} with {@code idempotency.missing-run} set to execute calls
 * without a run: such a call is the tool's own, and so is its result or error.
 */
@SpringBootTest(classes = McpServerRoundTripTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.name=tickets", "spring.datasource.url=jdbc:h2:mem:mcp-without-runs;DB_CLOSE_DELAY=-1",
				"idempotency.missing-run=execute-without-deduplication" })
class McpServerWithoutRunsTest {

	@LocalServerPort
	int port;

	@Autowired
	JdbcTemplate jdbc;

	private McpSyncClient client;

	@BeforeEach
	void connect() {
		this.client = McpServerRoundTripTest.client(this.port);
	}

	@AfterEach
	void disconnect() {
		this.client.closeGracefully();
	}

	@Test
	void aToolsOwnFailureWithoutARunIsReportedAsItIsNotAsARefusal() {
		CallToolResult result = this.client.callTool(new CallToolRequest("book_visit", Map.of("site", "closed yard"), null));

		assertThat(result.isError()).isTrue();
		String text = ((McpSchema.TextContent) result.content().get(0)).text();
		assertThat(text).contains("site closed yard is closed").doesNotContain("refused_without_run");
		McpServerRoundTripTest.assertAnswer(result, "executed_without_run", false);
	}

	@Test
	void aCallWithoutARunExecutesEveryTime() {
		int before = this.jdbc.queryForObject("SELECT COUNT(*) FROM visits", Integer.class);
		for (int i = 0; i < 2; i++) {
			CallToolResult result = this.client.callTool(new CallToolRequest("book_visit", Map.of("site", "plant 9"), null));
			assertThat(result.isError()).isFalse();
			McpServerRoundTripTest.assertAnswer(result, "executed_without_run", false);
		}
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM visits", Integer.class)).isEqualTo(before + 2);
	}

}
