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
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tool of an asynchronous MCP server decorated without Spring Boot: its handler runs the tool callback on
 * another thread, as Spring AI's asynchronous server does, which the run bound from {@code _meta} reaches
 * only with Reactor's automatic context propagation.
 */
class McpAsyncContextPropagationTest {

	private static final JsonMapper JSON = new JsonMapper();

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	public static class NoteTools {

		final AtomicInteger notes = new AtomicInteger();

		@Tool(name = "add_note", description = "Add a note")
		@IdempotentTool(reconcile = "findNote")
		public String addNote(String text) {
			return "note " + this.notes.incrementAndGet() + ": " + text;
		}

		public int added() {
			return this.notes.get();
		}

		Reconciliation<String> findNote(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	private AnnotationConfigApplicationContext context;

	private McpServerFeatures.AsyncToolSpecification tool;

	private NoteTools notes;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> new InMemoryLedger());
		this.context.registerBean(NoteTools.class, () -> new NoteTools());
		this.context.register(Enabled.class);
		this.context.refresh();
		this.notes = this.context.getBean(NoteTools.class);
		ToolCallback callback = IdempotentToolCallbacks.from(this.notes)[0];
		// As Spring AI's asynchronous server runs a tool callback: on a boundedElastic thread.
		McpServerFeatures.AsyncToolSpecification served = McpServerFeatures.AsyncToolSpecification.builder()
			.tool(McpSchema.Tool.builder().name("add_note").inputSchema(Map.of("type", "object")).build())
			.callHandler((exchange, request) -> Mono
				.fromCallable(() -> CallToolResult.builder()
					.content(List.of(McpSchema.TextContent.builder(callback.call(JSON.writeValueAsString(request.arguments())))
						.build()))
					.build())
				.subscribeOn(Schedulers.boundedElastic()))
			.build();
		this.tool = new IdempotentMcpTools(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, Set.of("add_note")).decorate(served);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void withAutomaticContextPropagationTheRunReachesTheToolsThreadAndARepeatIsReplayed() {
		Hooks.enableAutomaticContextPropagation();
		try {
			String first = call("run-1");
			String again = call("run-1");

			assertThat(first).isEqualTo("\"note 1: call back\"");
			assertThat(JSON.readTree(again).get("kind").asString()).isEqualTo("replayed");
			assertThat(this.notes.added()).isEqualTo(1);
		}
		finally {
			Hooks.disableAutomaticContextPropagation();
		}
	}

	@Test
	void withoutItTheCallIsRefusedForWantOfARunAndNothingRuns() {
		String answer = call("run-2");

		assertThat(JSON.readTree(answer).get("kind").asString()).isEqualTo("refused_without_run");
		assertThat(this.notes.added()).isZero();
	}

	private String call(String runId) {
		CallToolRequest request = new CallToolRequest("add_note", Map.of("text", "call back"),
				Map.of(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, runId));
		CallToolResult result = this.tool.callHandler().apply(null, request).block();
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

}
