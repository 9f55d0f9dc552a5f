package io.idempotency.sample;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.idempotency.sample.external.QuoteDelivery;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's tools served over MCP, called by the MCP Java SDK's client: the annotated methods and the
 * {@code send_quote} function callback alike advertise {@code idempotentHint} and answer a repeat in the
 * run from the ledger.
 */
class McpServerTest extends SampleAppTest {

	@LocalServerPort
	int port;

	@Autowired
	QuoteDelivery delivery;

	McpSyncClient client;

	@BeforeEach
	void connect() {
		this.client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + this.port).build())
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		this.client.initialize();
	}

	@AfterEach
	void disconnect() {
		this.client.closeGracefully();
	}

	@Test
	void theIdempotentToolsAdvertiseIdempotentHintTheReadDoesNot() {
		Map<String, McpSchema.Tool> tools = new HashMap<>();
		this.client.listTools().tools().forEach((tool) -> tools.put(tool.name(), tool));

		assertThat(tools).containsOnlyKeys("check_inventory", "draft_quote", "open_ticket", "reserve_stock", "send_quote");
		for (String idempotent : List.of("draft_quote", "open_ticket", "reserve_stock", "send_quote")) {
			assertThat(tools.get(idempotent).annotations().idempotentHint()).as(idempotent).isTrue();
		}
		McpSchema.ToolAnnotations read = tools.get("check_inventory").annotations();
		assertThat(read == null || !Boolean.TRUE.equals(read.idempotentHint())).isTrue();
	}

	@Test
	void sendingAQuoteTwiceInOneRunSendsItOnceAndTheRepeatIsToldSo() {
		// A run of its own: the sample's database outlives a test run on a server.
		String runId = "mcp-send-" + java.util.UUID.randomUUID();
		CallToolResult drafted = this.client.callTool(new CallToolRequest("draft_quote",
				Map.of("accountName", "Henderson Industrial", "sku", "PUMP-3", "quantity", 2), run(runId)));
		assertThat(drafted.isError()).as(text(drafted)).isFalse();
		long quoteId = quoteIdOf(drafted);
		int before = this.delivery.sends().size();

		CallToolResult sent = this.client.callTool(new CallToolRequest("send_quote", Map.of("quoteId", quoteId),
				run(runId)));
		CallToolResult again = this.client.callTool(new CallToolRequest("send_quote", Map.of("quoteId", quoteId),
				run(runId)));

		assertThat(sent.isError()).as(text(sent)).isFalse();
		assertThat(again.isError()).isFalse();
		assertThat(text(again)).contains("\"kind\":\"replayed\"");
		assertThat(again.meta()).containsEntry("io.idempotency/replayed", true);
		assertThat(this.delivery.sends().size() - before).isEqualTo(1);
	}

	private static Map<String, Object> run(String runId) {
		return Map.of("io.idempotency/runId", runId);
	}

	private static long quoteIdOf(CallToolResult drafted) {
		String text = text(drafted);
		java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(text);
		assertThat(id.find()).as(text).isTrue();
		return Long.parseLong(id.group(1));
	}

	private static String text(CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

}
