package io.idempotency.ai;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.test.InMemoryLedger;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP tool written by hand, decorated without Spring Boot, whose handler calls an idempotent method of a
 * bean and which is exposed under the method's {@code @IdempotentTool} name (the method has no {@code @Tool}
 * name): a repeat is shown as a replay, as for a tool exposed under its framework name.
 */
class McpToolNamedAfterItsIdempotentToolTest {

	private static final JsonMapper JSON = new JsonMapper();

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	public static class NoteTools {

		final AtomicInteger notes = new AtomicInteger();

		@IdempotentTool(name = "record_note", reconcile = "findNote")
		public String recordNote(String text) {
			return "note " + this.notes.incrementAndGet() + ": " + text;
		}

		public int recorded() {
			return this.notes.get();
		}

		Reconciliation<String> findNote(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	private AnnotationConfigApplicationContext context;

	private NoteTools notes;

	private final IdempotentMcpTools decorator = new IdempotentMcpTools(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY,
			Set.of("record_note"));

	private final McpSchema.Tool tool = McpSchema.Tool.builder()
		.name("record_note")
		.inputSchema(Map.of("type", "object"))
		.build();

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> new InMemoryLedger());
		this.context.registerBean(NoteTools.class, () -> new NoteTools());
		this.context.register(Enabled.class);
		this.context.refresh();
		this.notes = this.context.getBean(NoteTools.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	private CallToolResult noted(CallToolRequest request) {
		String text = this.notes.recordNote((String) request.arguments().get("text"));
		return CallToolResult.builder().content(List.of(McpSchema.TextContent.builder(text).build())).build();
	}

	private static CallToolRequest request(String runId) {
		return new CallToolRequest("record_note", Map.of("text", "call back"),
				Map.of(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, runId));
	}

	@Test
	void aRepeatOnASynchronousServerIsShownAsAReplay() {
		McpServerFeatures.SyncToolSpecification decorated = this.decorator.decorate(
				McpServerFeatures.SyncToolSpecification.builder()
					.tool(this.tool)
					.callHandler((exchange, request) -> noted(request))
					.build());

		CallToolResult first = decorated.callHandler().apply(null, request("run-1"));
		CallToolResult again = decorated.callHandler().apply(null, request("run-1"));

		assertReplayOf(first, again);
	}

	@Test
	void aRepeatOnAnAsynchronousServerIsShownAsAReplay() {
		McpServerFeatures.AsyncToolSpecification decorated = this.decorator.decorate(
				McpServerFeatures.AsyncToolSpecification.builder()
					.tool(this.tool)
					.callHandler((exchange, request) -> Mono.fromCallable(() -> noted(request)))
					.build());

		CallToolResult first = decorated.callHandler().apply(null, request("run-2")).block();
		CallToolResult again = decorated.callHandler().apply(null, request("run-2")).block();

		assertReplayOf(first, again);
	}

	private void assertReplayOf(CallToolResult first, CallToolResult again) {
		assertThat(text(first)).isEqualTo("note 1: call back");
		assertThat(this.notes.recorded()).isEqualTo(1);
		JsonNode told = JSON.readTree(text(again));
		assertThat(told.get("kind").asString()).isEqualTo("replayed");
		assertThat(told.get("result").asString()).isEqualTo("note 1: call back");
		assertThat(again.meta()).containsEntry(IdempotentMcpTools.REPLAYED_META_KEY, true);
	}

	private static String text(CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

}
