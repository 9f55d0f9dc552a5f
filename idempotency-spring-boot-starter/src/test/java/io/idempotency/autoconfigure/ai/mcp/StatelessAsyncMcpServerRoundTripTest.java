package io.idempotency.autoconfigure.ai.mcp;

import io.modelcontextprotocol.server.McpStatelessAsyncServer;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.Test;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The same calls as {@link AsyncMcpServerRoundTripTest}, to a stateless asynchronous server. */
@SpringBootTest(classes = McpServerRoundTripTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STATELESS",
				"spring.ai.mcp.server.type=ASYNC", "spring.ai.mcp.server.name=tickets",
				"spring.datasource.url=jdbc:h2:mem:mcp-stateless-async;DB_CLOSE_DELAY=-1" })
class StatelessAsyncMcpServerRoundTripTest extends AsyncMcpServerRoundTripTest {

	private static final JsonMapper JSON = new JsonMapper();

	/**
	 * Without a {@code _meta} run, nothing of the call reaches the scheduler's thread on a stateless
	 * asynchronous server: the refusal is told by the tool callback, in the text, and the result is not
	 * marked an error.
	 */
	@Test
	@Override
	void aCallWithoutARunIsRefusedAndNothingIsDone() {
		int before = tickets();
		CallToolResult result = this.client.callTool(openTicket("pump noise", null));

		assertThat(JSON.readTree(text(result)).get("kind").asString()).isEqualTo("refused_without_run");
		assertAnswer(result, "refused_without_run", false);
		assertThat(tickets()).isEqualTo(before);
	}

	@Test
	@Override
	void theServerIsAsynchronous() {
		assertThat(this.context.getBeansOfType(McpStatelessAsyncServer.class)).hasSize(1);
	}

}
