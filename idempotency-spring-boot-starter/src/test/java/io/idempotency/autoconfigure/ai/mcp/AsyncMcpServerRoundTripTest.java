package io.idempotency.autoconfigure.ai.mcp;

import java.time.Duration;
import java.util.Map;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The same calls as {@link McpServerRoundTripTest}, to a server of type {@code ASYNC}: Spring AI runs each
 * tool callback on a scheduler's thread, where the run and the call reach it. Spring AI exports to an
 * asynchronous server only the {@code @McpTool} methods that return a {@code Mono} or {@code Flux}, which an
 * {@code @IdempotentTool} cannot: there, idempotent tools are tool callbacks ({@code @Tool} methods).
 */
@SpringBootTest(classes = McpServerRoundTripTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.type=ASYNC", "spring.ai.mcp.server.name=tickets",
				"spring.datasource.url=jdbc:h2:mem:mcp-async;DB_CLOSE_DELAY=-1" })
class AsyncMcpServerRoundTripTest extends McpServerRoundTripTest {

	private static final JsonMapper JSON = new JsonMapper();

	@Autowired
	ApplicationContext context;

	@Test
	void theServerIsAsynchronous() {
		assertThat(this.context.getBeansOfType(McpAsyncServer.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(McpSyncServer.class)).isEmpty();
	}

	@Test
	void concurrentCallsOnTheSchedulersThreadsEachReadTheirOwnAnswer() throws Exception {
		// More calls than boundedElastic has threads, where Spring AI runs each tool callback.
		int subjects = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE / 2 + 4;
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2 * subjects);
		try {
			for (int round = 0; round < 10; round++) {
				int before = tickets();
				Map<String, Object> run = Map.of("io.idempotency/runId", "async-race-" + round);
				java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2 * subjects);
				java.util.List<java.util.concurrent.Future<String>> answers = new java.util.ArrayList<>();
				for (int i = 0; i < 2 * subjects; i++) {
					String subject = "subject " + (i % subjects);
					answers.add(pool.submit(() -> {
						start.await();
						return text(this.client.callTool(openTicket(subject, run)));
					}));
				}
				for (java.util.concurrent.Future<String> answer : answers) {
					answer.get(90, java.util.concurrent.TimeUnit.SECONDS);
				}
				assertThat(tickets()).as("round %d: one ticket per subject", round).isEqualTo(before + subjects);
				for (int i = 0; i < subjects; i++) {
					String one = answers.get(i).get();
					String other = answers.get(i + subjects).get();
					String executed = one.contains("\"kind\"") ? other : one;
					String repeat = (executed == one) ? other : one;
					assertThat(executed).as("round %d: one call of the pair executed", round).startsWith("\"TCK-");
					String kind = JSON.readTree(repeat).get("kind").asString();
					assertThat(kind).isIn("replayed", "in_progress");
					if (kind.equals("replayed")) {
						assertThat(JSON.readTree(repeat).get("result").asString())
							.as("round %d: the repeat reads its own call's result", round)
							.isEqualTo(JSON.readTree(executed).asString());
					}
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * The server's own tool, an {@code @IdempotentTool} {@code @Tool} method that Spring AI runs on
	 * {@code boundedElastic}: a call cancelled after it took effect (a transport whose client went away, a
	 * timeout) is not interrupted into a recorded failure, but runs to its outcome, which a repeat reads.
	 */
	@Test
	void aCallCancelledAfterItTookEffectRunsToItsOutcomeAndARepeatReadsItsResult() {
		String order = "S-" + System.nanoTime();
		CallToolRequest request = new CallToolRequest("ship_order", Map.of("order", order),
				Map.of("io.idempotency/runId", "ship-run-" + System.nanoTime()));
		TicketTools.carrierConfirms = new java.util.concurrent.CountDownLatch(1);

		reactor.core.Disposable call = served("ship_order").apply(request).subscribe();
		await().atMost(Duration.ofSeconds(30)).until(() -> shipments(order) == 1);
		call.dispose();
		TicketTools.carrierConfirms.countDown();

		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.jdbc.queryForObject("SELECT status FROM tool_audit WHERE tool = 'ship_order' AND arguments LIKE ?",
					String.class, "%" + order + "%"), (status) -> !status.equals("attempting"));
		assertThat(this.jdbc.queryForObject("SELECT status FROM tool_audit WHERE tool = 'ship_order' AND arguments LIKE ?",
				String.class, "%" + order + "%"))
			.isEqualTo("succeeded");
		CallToolResult repeat = this.client.callTool(request);
		assertThat(repeat.isError()).as(text(repeat)).isFalse();
		JsonNode notice = JSON.readTree(text(repeat));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("result").asString()).isEqualTo("shipped " + order);
		assertAnswer(repeat, "replayed", true);
		assertThat(shipments(order)).isEqualTo(1);
	}

	private int shipments(String order) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM shipments WHERE order_id = ?", Integer.class, order);
	}

	/** The handler of the server's tool of this name, as the server holds it: decorated. */
	java.util.function.Function<CallToolRequest, Mono<CallToolResult>> served(String name) {
		for (Object bean : this.context.getBeansOfType(java.util.List.class).values()) {
			for (Object element : (java.util.List<?>) bean) {
				if (element instanceof McpServerFeatures.AsyncToolSpecification tool && tool.tool().name().equals(name)) {
					return (request) -> tool.callHandler().apply(null, request);
				}
				if (element instanceof McpStatelessServerFeatures.AsyncToolSpecification tool
						&& tool.tool().name().equals(name)) {
					return (request) -> tool.callHandler().apply(McpTransportContext.EMPTY, request);
				}
			}
		}
		throw new IllegalStateException("No asynchronous tool named " + name);
	}

	@Test
	@Override
	void idempotentToolsAdvertiseIdempotentHintAndOthersAreLeftAlone() {
		Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
		this.client.listTools().tools().forEach((tool) -> tools.put(tool.name(), tool));

		assertThat(tools.get("open_ticket").annotations().idempotentHint()).isTrue();
		assertThat(tools.get("book_visit").annotations().idempotentHint()).isTrue();
		assertThat(tools.get("check_inventory").annotations()).isNull();
		assertThat(tools).doesNotContainKeys("draft_quote", "hold_slot", "summarise_report", "export_report");
	}

	@Test
	@Override
	void aCallWithoutARunIsRefusedAndNothingIsDone() {
		int before = tickets();
		CallToolResult result = this.client.callTool(openTicket("pump noise", null));

		assertThat(result.isError()).isTrue();
		assertThat(JSON.readTree(text(result)).get("kind").asString()).isEqualTo("refused_without_run");
		assertThat(JSON.readTree(text(result)).get("message").asString())
			.contains("_meta entry 'io.idempotency/runId'");
		assertAnswer(result, "refused_without_run", false);
		assertThat(tickets()).isEqualTo(before);
	}

	@Test
	@Override
	void anMcpToolMethodReplaysItsStructuredResultUnchangedAndTellsTheNoticeInItsText() {
		assertThat(toolNames()).doesNotContain("draft_quote");
	}

	@Test
	@Override
	void anMcpToolMethodWhoseLargeCallsNeedApprovalActsOnSmallOnesAndNeverOnOneRejected() {
		assertThat(toolNames()).doesNotContain("reserve_truck");
	}

	@Test
	@Override
	void anMcpToolMethodReturningAToolResultCarriesTheNoticeInMeta() {
		assertThat(toolNames()).doesNotContain("hold_slot");
	}

	@Test
	@Override
	void aToolTakingTheRequestContextRunsOnceAndARepeatIsReplayed() {
		assertThat(toolNames()).doesNotContain("summarise_report");
	}

	@Test
	@Override
	void aReSentCallWithANewProgressTokenAndMetaHasOneEffect() {
		assertThat(toolNames()).doesNotContain("export_report");
	}

}
