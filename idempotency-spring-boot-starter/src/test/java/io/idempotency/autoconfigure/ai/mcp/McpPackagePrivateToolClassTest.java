package io.idempotency.autoconfigure.ai.mcp;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP server's tools in package-private classes, as an application writes them, with public methods: a
 * {@code @Tool} exported as a callback provider and an {@code @McpTool}, called by the MCP Java SDK's client
 * through their beans' class-based proxies, once per run.
 */
@SpringBootTest(classes = McpPackagePrivateToolClassTest.Server.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.name=desk", "spring.datasource.url=jdbc:h2:mem:mcp-package-private;DB_CLOSE_DELAY=-1" })
class McpPackagePrivateToolClassTest {

	@LocalServerPort
	int port;

	McpSyncClient client;

	@BeforeEach
	void connect() {
		this.client = McpServerRoundTripTest.client(this.port);
	}

	@AfterEach
	void disconnect() {
		this.client.closeGracefully();
	}

	@Test
	void aToolCallbackOfAPackagePrivateClassRunsOnceAndTheRepeatIsReplayed() {
		int before = Desk.opened.get();
		Map<String, Object> run = Map.of("io.idempotency/runId", "run-package-private-" + System.nanoTime());
		CallToolResult first = this.client.callTool(new CallToolRequest("open_case", Map.of("subject", "leak"), run));
		CallToolResult again = this.client.callTool(new CallToolRequest("open_case", Map.of("subject", "leak"), run));

		assertThat(first.isError()).as(McpServerRoundTripTest.text(first)).isFalse();
		assertThat(again.isError()).as(McpServerRoundTripTest.text(again)).isFalse();
		assertThat(again.meta()).containsEntry("io.idempotency/replayed", true);
		assertThat(Desk.opened.get() - before).isEqualTo(1);
	}

	@Test
	void anMcpToolOfAPackagePrivateClassRunsOnceAndTheRepeatIsReplayed() {
		int before = Slots.held.get();
		Map<String, Object> run = Map.of("io.idempotency/runId", "run-package-private-" + System.nanoTime());
		CallToolResult first = this.client.callTool(new CallToolRequest("hold_day", Map.of("day", "Monday"), run));
		CallToolResult again = this.client.callTool(new CallToolRequest("hold_day", Map.of("day", "Monday"), run));

		assertThat(first.isError()).as(McpServerRoundTripTest.text(first)).isFalse();
		assertThat(again.isError()).as(McpServerRoundTripTest.text(again)).isFalse();
		assertThat(again.meta()).containsEntry("io.idempotency/replayed", true);
		assertThat(Slots.held.get() - before).isEqualTo(1);
	}

	/** Exported as tool callbacks. */
	static class Desk {

		static final AtomicInteger opened = new AtomicInteger();

		@Tool(name = "open_case", description = "Open a support case")
		@IdempotentTool(reconcile = "findCase")
		public String openCase(String subject) {
			return "CASE-" + opened.incrementAndGet();
		}

		Reconciliation<String> findCase(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** Exported from an {@code @McpTool} method. */
	static class Slots {

		static final AtomicInteger held = new AtomicInteger();

		@McpTool(name = "hold_day", description = "Hold a delivery day")
		@IdempotentTool(reconcile = "findDay")
		public String holdDay(@McpToolParam(description = "the day") String day) {
			return day + "-" + held.incrementAndGet();
		}

		Reconciliation<String> findDay(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Server {

		@Bean
		Desk desk() {
			return new Desk();
		}

		@Bean
		ToolCallbackProvider deskToolCallbacks(Desk desk) {
			return MethodToolCallbackProvider.builder().toolObjects(desk).build();
		}

		@Bean
		Slots slots() {
			return new Slots();
		}

	}

}
