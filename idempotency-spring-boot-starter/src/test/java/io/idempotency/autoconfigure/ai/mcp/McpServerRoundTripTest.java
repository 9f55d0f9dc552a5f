package io.idempotency.autoconfigure.ai.mcp;

import java.time.Duration;
import java.util.Map;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.modelcontextprotocol.common.McpTransportContext;
import org.springframework.ai.mcp.annotation.McpMeta;
import org.springframework.ai.mcp.annotation.McpProgressToken;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.context.McpSyncRequestContext;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP server made by Spring AI's starter, over Streamable HTTP on loopback, called by the MCP Java SDK's
 * client: tools exported from {@code @Tool} callbacks and from {@code @McpTool} methods.
 */
@SpringBootTest(classes = McpServerRoundTripTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE", "spring.ai.mcp.server.name=tickets",
				"spring.datasource.url=jdbc:h2:mem:mcp;DB_CLOSE_DELAY=-1" })
class McpServerRoundTripTest {

	private static final JsonMapper JSON = new JsonMapper();

	@LocalServerPort
	int port;

	@Autowired
	JdbcTemplate jdbc;

	McpSyncClient client;

	@BeforeEach
	void connect() {
		this.client = client(this.port);
	}

	/** An initialised client of the MCP SDK for the server on this port. */
	static McpSyncClient client(int port) {
		McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).build())
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		client.initialize();
		return client;
	}

	@AfterEach
	void disconnect() {
		this.client.closeGracefully();
	}

	@Test
	void idempotentToolsAdvertiseIdempotentHintAndOthersAreLeftAlone() {
		Map<String, McpSchema.Tool> tools = new java.util.HashMap<>();
		this.client.listTools().tools().forEach((tool) -> tools.put(tool.name(), tool));

		assertThat(tools).containsKeys("open_ticket", "draft_quote", "check_inventory");
		assertThat(tools.get("open_ticket").annotations().idempotentHint()).isTrue();
		McpSchema.ToolAnnotations draft = tools.get("draft_quote").annotations();
		assertThat(draft.idempotentHint()).isTrue();
		assertThat(draft.destructiveHint()).as("the application's own hints are kept").isFalse();
		McpSchema.ToolAnnotations inventory = tools.get("check_inventory").annotations();
		assertThat(inventory == null || !Boolean.TRUE.equals(inventory.idempotentHint())).isTrue();
	}

	@Test
	void theSameCallTwiceInOneRunHasOneEffectAndTheRepeatIsToldItWasReplayed() {
		int before = tickets();
		CallToolResult first = this.client.callTool(openTicket("seal failure", Map.of("io.idempotency/runId", "run-mcp-1")));
		CallToolResult again = this.client.callTool(openTicket("seal failure", Map.of("io.idempotency/runId", "run-mcp-1")));

		assertThat(tickets()).isEqualTo(before + 1);
		assertThat(first.isError()).isFalse();
		assertAnswer(first, "executed", false);
		assertThat(first.meta()).as("a call that executed has no message").doesNotContainKey("io.idempotency/message");
		String ticket = text(first);
		assertThat(JSON.readTree(ticket).asString()).startsWith("TCK-");

		assertThat(again.isError()).isFalse();
		JsonNode notice = JSON.readTree(text(again));
		assertThat(notice.get("replayed").asBoolean()).isTrue();
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("message").asString()).contains("Nothing was done again");
		assertThat(notice.get("result")).isEqualTo(JSON.readTree(ticket));
		assertAnswer(again, "replayed", true);
		assertThat(again.meta()).containsKey("io.idempotency/message");

		CallToolResult nextRun = this.client.callTool(openTicket("seal failure", Map.of("io.idempotency/runId", "run-mcp-2")));
		assertThat(nextRun.isError()).isFalse();
		assertThat(text(nextRun)).isNotEqualTo(ticket);
		assertThat(tickets()).as("a new run is a new action").isEqualTo(before + 2);
	}

	@Autowired
	io.idempotency.reconcile.Approvals approvals;

	@Test
	void aCallThatNeedsApprovalWaitsDoingNothingThenActsOnceApprovedAndNeverOnceRejected() {
		String runId = "run-approval-" + System.nanoTime();
		Map<String, Object> run = Map.of("io.idempotency/runId", runId);
		CallToolRequest refund = new CallToolRequest("refund_order", Map.of("order", "O-1"), run);
		int before = refunds();
		for (int i = 0; i < 2; i++) {
			CallToolResult waiting = this.client.callTool(refund);
			assertThat(waiting.isError()).as("not executed: the client must not take it for a result").isTrue();
			JsonNode told = JSON.readTree(text(waiting));
			assertThat(told.get("kind").asString()).isEqualTo("awaiting_approval");
			assertThat(told.get("replayed").asBoolean()).isFalse();
			assertThat(told.get("message").asString()).contains("a person must approve this action")
				.contains("Do not call it again");
			assertAnswer(waiting, "awaiting_approval", false);
			assertThat((String) waiting.meta().get("io.idempotency/message")).contains("a person must approve this action");
		}
		assertThat(refunds()).isEqualTo(before);

		this.approvals.approve(awaitingKey("refund_order", runId), "ops", "the customer returned the goods");
		CallToolResult executed = this.client.callTool(refund);
		assertThat(executed.isError()).isFalse();
		assertAnswer(executed, "executed", false);
		assertThat(JSON.readTree(text(executed)).asString()).isEqualTo("refunded O-1");
		CallToolResult replayed = this.client.callTool(refund);
		assertAnswer(replayed, "replayed", true);
		assertThat(refunds()).as("approved once, refunded once").isEqualTo(before + 1);
	}

	@Test
	void anMcpToolMethodWhoseLargeCallsNeedApprovalActsOnSmallOnesAndNeverOnOneRejected() {
		String runId = "run-truck-" + System.nanoTime();
		Map<String, Object> run = Map.of("io.idempotency/runId", runId);
		CallToolResult small = this.client.callTool(new CallToolRequest("reserve_truck", Map.of("tonnes", 5), run));
		assertThat(small.isError()).isFalse();
		assertAnswer(small, "executed", false);
		CallToolRequest large = new CallToolRequest("reserve_truck", Map.of("tonnes", 40), run);
		CallToolResult waiting = this.client.callTool(large);
		assertThat(waiting.isError()).isTrue();
		assertAnswer(waiting, "awaiting_approval", false);
		assertThat(JSON.readTree(text(waiting)).get("message").asString()).contains("a truck over 10 tonnes (40)");
		int trucks = QuoteTools.trucks.get();
		this.approvals.reject(awaitingKey("reserve_truck", runId), "ops", "no truck is free that week");
		CallToolResult refused = this.client.callTool(large);
		assertThat(refused.isError()).isTrue();
		assertAnswer(refused, "refused_not_approved", false);
		assertThat(JSON.readTree(text(refused)).get("message").asString()).contains("no truck is free that week");
		assertThat(QuoteTools.trucks.get()).as("rejected: never reserved").isEqualTo(trucks);
	}

	private io.idempotency.key.IdempotencyKey awaitingKey(String tool, String runId) {
		return this.approvals.awaiting(tool, 0, 100)
			.stream()
			.filter((call) -> call.entry().runId().equals(runId))
			.findFirst()
			.orElseThrow()
			.entry()
			.key();
	}

	int refunds() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM refunds", Integer.class);
	}

	@Test
	void anMcpToolMethodReplaysItsStructuredResultUnchangedAndTellsTheNoticeInItsText() {
		int before = drafts();
		Map<String, Object> run = Map.of("io.idempotency/runId", "run-mcp-3");
		CallToolResult first = this.client.callTool(new CallToolRequest("draft_quote", Map.of("sku", "SKU-4411", "quantity", 200), run));
		CallToolResult again = this.client
			.callTool(new CallToolRequest("draft_quote", Map.of("quantity", 200, "sku", "SKU-4411"), run));

		assertThat(drafts()).isEqualTo(before + 1);
		assertThat(first.isError()).isFalse();
		assertThat(first.structuredContent()).isNotNull();
		assertThat(again.structuredContent()).as("still valid against the output schema").isEqualTo(first.structuredContent());
		JsonNode notice = JSON.readTree(text(again));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("result")).isEqualTo(JSON.readTree(text(first)));
		assertAnswer(again, "replayed", true);
		assertThat(again.meta()).containsKey("io.idempotency/message");
		assertAnswer(first, "executed", false);
	}

	@Test
	void aCallWithoutARunIsRefusedAndNothingIsDone() {
		int before = tickets();
		CallToolResult result = this.client.callTool(openTicket("pump noise", null));

		assertThat(result.isError()).isTrue();
		JsonNode refusal = JSON.readTree(text(result));
		assertThat(refusal.get("kind").asString()).isEqualTo("refused_without_run");
		assertThat(refusal.get("message").asString()).as("what the client must do, not the server's code")
			.contains("_meta entry 'io.idempotency/runId'")
			.doesNotContain("RunContext")
			.doesNotContain("ToolContext");
		assertAnswer(result, "refused_without_run", false);
		assertThat((String) result.meta().get("io.idempotency/message")).contains("_meta entry 'io.idempotency/runId'");
		assertThat(tickets()).isEqualTo(before);

		int drafts = drafts();
		CallToolResult method = this.client.callTool(new CallToolRequest("draft_quote", Map.of("sku", "SKU-1", "quantity", 1), null));
		assertThat(method.isError()).isTrue();
		assertThat(JSON.readTree(text(method)).get("kind").asString()).isEqualTo("refused_without_run");
		assertAnswer(method, "refused_without_run", false);
		assertThat(drafts()).isEqualTo(drafts);
	}

	@Test
	void aRunIdThatIsNotAStringIsRefusedByName() {
		int before = tickets();
		CallToolResult result = this.client.callTool(openTicket("pump noise", Map.of("io.idempotency/runId", 42)));

		assertThat(result.isError()).isTrue();
		JsonNode refusal = JSON.readTree(text(result));
		assertThat(refusal.get("kind").asString()).isEqualTo("refused_invalid_run");
		assertThat(refusal.get("message").asString()).contains("io.idempotency/runId");
		assertAnswer(result, "refused_invalid_run", false);
		assertThat(tickets()).isEqualTo(before);
	}

	@Test
	void aRunIdWithALineBreakOrTooLongIsRefusedAndNothingRuns() {
		int before = tickets();
		for (String runId : java.util.List.of("run-1\nforged log line", "r".repeat(256))) {
			CallToolResult result = this.client.callTool(openTicket("pump noise", Map.of("io.idempotency/runId", runId)));
			assertThat(result.isError()).isTrue();
			assertThat(JSON.readTree(text(result)).get("kind").asString()).isEqualTo("refused_invalid_run");
			assertAnswer(result, "refused_invalid_run", false);
		}
		assertThat(tickets()).isEqualTo(before);
	}

	@Test
	void anotherUserPresentingTheSameRunIdIsRefusedAndReadsNothingOfTheFirstUsersCall() {
		McpSyncClient ada = clientOf("ada");
		McpSyncClient bob = clientOf("bob");
		try {
			int before = tickets();
			Map<String, Object> meta = Map.of("io.idempotency/runId", "shared-run-" + System.nanoTime());
			CallToolResult opened = ada.callTool(openTicket("valve leak", meta));
			assertThat(opened.isError()).isFalse();

			CallToolResult refused = bob.callTool(openTicket("valve leak", meta));
			assertThat(refused.isError()).isTrue();
			assertThat(JSON.readTree(text(refused)).get("kind").asString()).isEqualTo("refused_conflict");
			assertThat(text(refused)).doesNotContain(text(opened));
			assertAnswer(refused, "refused_conflict", false);
			assertThat(refused.meta().toString()).doesNotContain(text(opened));

			CallToolResult replayed = ada.callTool(openTicket("valve leak", meta));
			assertAnswer(replayed, "replayed", true);
			assertThat(tickets()).isEqualTo(before + 1);
		}
		finally {
			ada.closeGracefully();
			bob.closeGracefully();
		}
	}

	private McpSyncClient clientOf(String user) {
		return clientWithHeader(this.port, Server.USER_HEADER, user);
	}

	/** An initialised client whose every HTTP request carries the header. */
	static McpSyncClient clientWithHeader(int port, String header, String value) {
		McpSyncClient client = McpClient
			.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
				.requestBuilder(java.net.http.HttpRequest.newBuilder().header(header, value))
				.build())
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		client.initialize();
		return client;
	}

	/**
	 * A call without a {@code _meta} run, in an HTTP request whose {@code Idempotency-Key} header names one
	 * ({@code idempotency.http.run-header}): it runs in that run, and the request retried with the same header
	 * is replayed; another header is another run.
	 */
	@Test
	void aCallWithoutAMetaRunRunsInTheRunOfItsRequestsIdempotencyKeyHeader() {
		String runId = "header-run-" + System.nanoTime();
		McpSyncClient first = clientWithHeader(this.port, "Idempotency-Key", runId);
		McpSyncClient retried = clientWithHeader(this.port, "Idempotency-Key", runId);
		McpSyncClient next = clientWithHeader(this.port, "Idempotency-Key", runId + "-next");
		try {
			int before = tickets();
			CallToolResult opened = first.callTool(openTicket("gasket wear", null));
			CallToolResult again = retried.callTool(openTicket("gasket wear", null));

			assertThat(opened.isError()).as(text(opened)).isFalse();
			assertThat(JSON.readTree(text(opened)).asString()).startsWith("TCK-");
			assertThat(again.isError()).as(text(again)).isFalse();
			assertThat(JSON.readTree(text(again)).get("kind").asString()).isEqualTo("replayed");
			assertThat(again.meta()).containsEntry("io.idempotency/replayed", true);
			assertThat(tickets()).isEqualTo(before + 1);

			CallToolResult nextRun = next.callTool(openTicket("gasket wear", null));
			assertThat(nextRun.isError()).as(text(nextRun)).isFalse();
			assertThat(tickets()).as("another request is another action").isEqualTo(before + 2);
		}
		finally {
			first.closeGracefully();
			retried.closeGracefully();
			next.closeGracefully();
		}
	}

	@Test
	void aReSentCallWithANewProgressTokenAndMetaHasOneEffect() {
		int before = reports();
		String run = "run-mcp-progress-" + System.nanoTime();
		CallToolResult first = this.client.callTool(new CallToolRequest("export_report", Map.of("account", "acme"),
				Map.of("io.idempotency/runId", run, "progressToken", "p-1")));
		CallToolResult resent = this.client.callTool(new CallToolRequest("export_report", Map.of("account", "acme"),
				Map.of("io.idempotency/runId", run, "progressToken", "p-2", "com.example/trace", "t-2")));

		assertThat(first.isError()).as(text(first)).isFalse();
		assertThat(resent.isError()).as(text(resent)).isFalse();
		assertThat(reports()).as("the progress token, _meta, request and request context are not the call's intent")
			.isEqualTo(before + 1);
		assertThat(resent.meta()).containsEntry("io.idempotency/replayed", true);
		assertThat(JSON.readTree(text(resent)).get("result").asString()).isEqualTo(text(first));
		assertThat(ReportTools.contexts.get()).as("the tool was given its transport context").isPositive();
	}

	@Test
	void aToolTakingTheRequestContextRunsOnceAndARepeatIsReplayed() {
		int before = reports();
		String run = "run-mcp-context-" + System.nanoTime();
		CallToolResult first = this.client.callTool(new CallToolRequest("summarise_report", Map.of("account", "acme"),
				Map.of("io.idempotency/runId", run, "progressToken", "p-1")));
		CallToolResult resent = this.client.callTool(new CallToolRequest("summarise_report", Map.of("account", "acme"),
				Map.of("io.idempotency/runId", run, "progressToken", "p-2")));

		assertThat(first.isError()).as(text(first)).isFalse();
		assertThat(resent.isError()).as(text(resent)).isFalse();
		assertThat(resent.meta()).containsEntry("io.idempotency/replayed", true);
		assertThat(reports()).isEqualTo(before + 1);
	}

	@Test
	void argumentsThatCannotBeAKeyAreRefusedWithTheirKind() {
		int before = tickets();
		CallToolResult result = this.client
			.callTool(openTicket("seal\u0000failure", Map.of("io.idempotency/runId", "run-mcp-invalid")));

		assertThat(result.isError()).isTrue();
		JsonNode refusal = JSON.readTree(text(result));
		assertThat(refusal.get("kind").asString()).isEqualTo("refused_invalid_arguments");
		assertThat(refusal.get("replayed").asBoolean()).isFalse();
		assertAnswer(result, "refused_invalid_arguments", false);
		assertThat(tickets()).isEqualTo(before);
	}

	@Test
	void aToolResultToolsReplayCarriesTheNoticeInMetaAndItsRepeatedFailureIsAnError() {
		int before = visits();
		Map<String, Object> run = Map.of("io.idempotency/runId", "run-mcp-visit-" + System.nanoTime());
		CallToolResult first = this.client.callTool(new CallToolRequest("book_visit", Map.of("site", "plant 3"), run));
		CallToolResult again = this.client.callTool(new CallToolRequest("book_visit", Map.of("site", "plant 3"), run));

		assertThat(visits()).isEqualTo(before + 1);
		assertThat(first.isError()).isFalse();
		assertAnswer(first, "executed", false);
		assertThat(JSON.readTree(text(first)).get("kind").asString()).isEqualTo("executed");
		assertThat(again.isError()).isFalse();
		assertThat(JSON.readTree(text(again)).get("kind").asString()).isEqualTo("replayed");
		assertAnswer(again, "replayed", true);
		assertThat(again.meta()).containsKey("io.idempotency/message");

		CallToolResult failed = this.client.callTool(new CallToolRequest("book_visit", Map.of("site", "closed yard"), run));
		CallToolResult repeat = this.client.callTool(new CallToolRequest("book_visit", Map.of("site", "closed yard"), run));
		assertThat(failed.isError()).isTrue();
		assertThat(text(failed)).contains("closed yard is closed");
		assertAnswer(failed, "failed", false);
		assertThat(repeat.isError()).as("a repeat of a failed call reads as an error").isTrue();
		assertThat(JSON.readTree(text(repeat)).get("kind").asString()).isEqualTo("previous_attempt_failed");
		assertAnswer(repeat, "previous_attempt_failed", true);
		assertThat(visits()).isEqualTo(before + 1);
	}

	@Test
	void anMcpToolMethodReturningAToolResultCarriesTheNoticeInMeta() {
		int before = QuoteTools.slots.get();
		Map<String, Object> run = Map.of("io.idempotency/runId", "run-mcp-slot-" + System.nanoTime());
		CallToolResult first = this.client.callTool(new CallToolRequest("hold_slot", Map.of("day", "Monday"), run));
		CallToolResult again = this.client.callTool(new CallToolRequest("hold_slot", Map.of("day", "Monday"), run));

		assertThat(first.isError()).as(text(first)).isFalse();
		assertThat(again.isError()).isFalse();
		assertThat(text(again)).contains("\"kind\":\"replayed\"");
		assertAnswer(again, "replayed", true);
		assertAnswer(first, "executed", false);
		assertThat(QuoteTools.slots.get() - before).isEqualTo(1);
	}

	@Test
	void aToolThatIsNotIdempotentRunsEveryTime() {
		CallToolResult result = this.client.callTool(new CallToolRequest("check_inventory", Map.of("sku", "SKU-4411"), null));
		assertThat(result.isError()).isFalse();
		assertThat(text(result)).isEqualTo("120");
		assertThat(result.meta()).as("no answer of the library's: the tool is not idempotent").isNull();
	}

	/** A repeat while the first call still runs: not executed again, and an error result, of kind in_progress. */
	@Test
	void aRepeatOfACallStillRunningIsToldItIsInProgress() throws Exception {
		String order = "P-" + System.nanoTime();
		Map<String, Object> run = Map.of("io.idempotency/runId", "ship-run-" + System.nanoTime());
		TicketTools.carrierConfirms = new java.util.concurrent.CountDownLatch(1);
		McpSyncClient other = client(this.port);
		java.util.concurrent.ExecutorService caller = java.util.concurrent.Executors.newSingleThreadExecutor();
		try {
			java.util.concurrent.Future<CallToolResult> first = caller
				.submit(() -> other.callTool(new CallToolRequest("ship_order", Map.of("order", order), run)));
			org.awaitility.Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> this.jdbc.queryForObject("SELECT COUNT(*) FROM shipments WHERE order_id = ?", Integer.class,
						order) == 1);
			CallToolResult repeat = this.client.callTool(new CallToolRequest("ship_order", Map.of("order", order), run));
			TicketTools.carrierConfirms.countDown();

			assertThat(repeat.isError()).isTrue();
			assertThat(JSON.readTree(text(repeat)).get("kind").asString()).isEqualTo("in_progress");
			assertAnswer(repeat, "in_progress", true);
			assertThat((String) repeat.meta().get("io.idempotency/message")).contains("still in progress");
			CallToolResult shipped = first.get(60, java.util.concurrent.TimeUnit.SECONDS);
			assertThat(shipped.isError()).as(text(shipped)).isFalse();
			assertAnswer(shipped, "executed", false);
		}
		finally {
			TicketTools.carrierConfirms.countDown();
			caller.shutdownNow();
			other.closeGracefully();
		}
	}

	/** A repeat of a call that succeeded, whose result is not in its row: done, not done again, no result. */
	@Test
	void aRepeatOfACallWhoseResultWasNotStoredIsToldSo() {
		String runId = "run-mcp-unstored-" + System.nanoTime();
		CallToolResult first = this.client.callTool(openTicket("bearing", Map.of("io.idempotency/runId", runId)));
		assertAnswer(first, "executed", false);
		this.jdbc.update("UPDATE tool_audit SET result = NULL WHERE run_id = ?", runId);

		CallToolResult repeat = this.client.callTool(openTicket("bearing", Map.of("io.idempotency/runId", runId)));
		assertThat(repeat.isError()).isTrue();
		assertThat(JSON.readTree(text(repeat)).get("kind").asString()).isEqualTo("replayed_without_result");
		assertAnswer(repeat, "replayed_without_result", true);
	}

	/** A repeat keyed on the account alone, with another note: replayed, or refused, as the tool says. */
	@Test
	void aRepeatWithOtherDetailsIsToldItsKindAsReplayedOrRefused() {
		Map<String, Object> run = Map.of("io.idempotency/runId", "run-mcp-details-" + System.nanoTime());
		CallToolResult first = this.client.callTool(new CallToolRequest("log_call", Map.of("account", "acme", "note", "a"), run));
		CallToolResult replayed = this.client
			.callTool(new CallToolRequest("log_call", Map.of("account", "acme", "note", "b"), run));
		assertAnswer(first, "executed", false);
		assertThat(replayed.isError()).isFalse();
		assertAnswer(replayed, "replayed_different_details", true);
		assertThat((String) replayed.meta().get("io.idempotency/message")).contains("were not applied: note");

		this.client.callTool(new CallToolRequest("log_call_strictly", Map.of("account", "acme", "note", "a"), run));
		CallToolResult refused = this.client
			.callTool(new CallToolRequest("log_call_strictly", Map.of("account", "acme", "note", "b"), run));
		assertThat(refused.isError()).isTrue();
		assertThat(JSON.readTree(text(refused)).get("kind").asString()).isEqualTo("refused_different_details");
		assertAnswer(refused, "refused_different_details", false);
	}

	/**
	 * The result's {@code _meta} names the answer's kind and whether it was a repeat, and the text a client
	 * reads names no Java type.
	 */
	static void assertAnswer(CallToolResult result, String kind, boolean replayed) {
		assertThat(result.meta()).as(String.valueOf(result))
			.containsEntry("io.idempotency/kind", kind)
			.containsEntry("io.idempotency/replayed", replayed);
		String read = result.content().toString() + result.meta().values();
		assertThat(read).as("no Java type in what the client reads")
			.doesNotContainPattern("\\b(?:[a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)\\b")
			.doesNotContain("io.idempotency.");
	}

	java.util.Set<String> toolNames() {
		java.util.Set<String> names = new java.util.TreeSet<>();
		this.client.listTools().tools().forEach((tool) -> names.add(tool.name()));
		return names;
	}

	static CallToolRequest openTicket(String subject, Map<String, Object> meta) {
		return new CallToolRequest("open_ticket", Map.of("subject", subject), meta);
	}

	static String text(CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

	int tickets() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM tickets", Integer.class);
	}

	private int drafts() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM drafts", Integer.class);
	}

	int visits() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM visits", Integer.class);
	}

	private int reports() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM reports", Integer.class);
	}

	public record Draft(long id, String sku, int quantity) {
	}

	/** Exported as tool callbacks. */
	public static class TicketTools {

		private final JdbcTemplate jdbc;

		public TicketTools(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			jdbc.execute("CREATE TABLE IF NOT EXISTS tickets (id BIGINT AUTO_INCREMENT PRIMARY KEY, subject VARCHAR(100))");
			jdbc.execute("CREATE TABLE IF NOT EXISTS visits (id BIGINT AUTO_INCREMENT PRIMARY KEY, site VARCHAR(100))");
			jdbc.execute("CREATE TABLE IF NOT EXISTS shipments (id BIGINT AUTO_INCREMENT PRIMARY KEY, order_id VARCHAR(100))");
			jdbc.execute("CREATE TABLE IF NOT EXISTS refunds (id BIGINT AUTO_INCREMENT PRIMARY KEY, order_id VARCHAR(100))");
		}

		@Tool(name = "open_ticket", description = "Open a support ticket")
		@IdempotentTool(transactional = true)
		public String openTicket(String subject) {
			this.jdbc.update("INSERT INTO tickets (subject) VALUES (?)", subject);
			return "TCK-" + this.jdbc.queryForObject("SELECT MAX(id) FROM tickets", Long.class);
		}

		@Tool(name = "log_call", description = "Log a call with an account; one per account in a run")
		@IdempotentTool(transactional = true, keyArguments = "account")
		public String logCall(String account, String note) {
			this.jdbc.update("INSERT INTO tickets (subject) VALUES (?)", "call " + account);
			return "logged " + account;
		}

		@Tool(name = "log_call_strictly", description = "Log a call with an account; refuses other details")
		@IdempotentTool(transactional = true, keyArguments = "account",
				onDifferentDetails = io.idempotency.DifferentDetails.REFUSE)
		public String logCallStrictly(String account, String note) {
			this.jdbc.update("INSERT INTO tickets (subject) VALUES (?)", "call " + account);
			return "logged " + account;
		}

		@Tool(name = "check_inventory", description = "Units in stock; a read, so not idempotent-annotated")
		public int checkInventory(String sku) {
			return 120;
		}

		@Tool(name = "book_visit", description = "Book a site visit")
		@IdempotentTool(reconcile = "findVisit")
		public ToolResult<String> bookVisit(String site) {
			if (site.startsWith("closed")) {
				throw new IllegalArgumentException("site " + site + " is closed");
			}
			this.jdbc.update("INSERT INTO visits (site) VALUES (?)", site);
			return ToolResult.of("V-" + this.jdbc.queryForObject("SELECT MAX(id) FROM visits", Long.class));
		}

		Reconciliation<String> findVisit(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@Tool(name = "refund_order", description = "Refund an order, once a person approves it")
		@IdempotentTool(reconcile = "findRefund", requiresApproval = true)
		public String refundOrder(String order) {
			this.jdbc.update("INSERT INTO refunds (order_id) VALUES (?)", order);
			return "refunded " + order;
		}

		Reconciliation<String> findRefund(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		/** Released by a test: until then, the carrier has not confirmed a shipment. */
		static volatile java.util.concurrent.CountDownLatch carrierConfirms = new java.util.concurrent.CountDownLatch(0);

		/** Ships (the effect), then waits for the carrier's confirmation. */
		@Tool(name = "ship_order", description = "Ship an order")
		@IdempotentTool(reconcile = "findShipment")
		public String shipOrder(String order) throws InterruptedException {
			this.jdbc.update("INSERT INTO shipments (order_id) VALUES (?)", order);
			carrierConfirms.await();
			return "shipped " + order;
		}

		Reconciliation<String> findShipment(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** An {@code @McpTool} method that takes every value Spring AI injects with the request. */
	public static class ReportTools {

		static final java.util.concurrent.atomic.AtomicInteger contexts = new java.util.concurrent.atomic.AtomicInteger();

		private final JdbcTemplate jdbc;

		public ReportTools(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			jdbc.execute("CREATE TABLE IF NOT EXISTS reports (id BIGINT AUTO_INCREMENT PRIMARY KEY, account VARCHAR(100))");
		}

		@McpTool(name = "export_report", description = "Export a report, telling progress")
		@IdempotentTool(transactional = true)
		public String exportReport(@McpToolParam(description = "the account") String account,
				@McpProgressToken String progressToken, McpMeta meta, CallToolRequest request,
				McpTransportContext transport) {
			if (transport != null && meta != null && request != null) {
				contexts.incrementAndGet();
			}
			return insert(account);
		}

		/** Spring AI exports a tool with a request context from stateful servers only. */
		@McpTool(name = "summarise_report", description = "Summarise a report")
		@IdempotentTool(transactional = true)
		public String summariseReport(@McpToolParam(description = "the account") String account,
				McpSyncRequestContext context) {
			return insert(account);
		}

		private String insert(String account) {
			this.jdbc.update("INSERT INTO reports (account) VALUES (?)", account);
			return "R-" + this.jdbc.queryForObject("SELECT MAX(id) FROM reports", Long.class);
		}

	}

	/** Exported from {@code @McpTool} methods. */
	public static class QuoteTools {

		static final java.util.concurrent.atomic.AtomicInteger slots = new java.util.concurrent.atomic.AtomicInteger();

		@McpTool(name = "hold_slot", description = "Hold a delivery slot")
		@IdempotentTool(reconcile = "findSlot")
		public ToolResult<String> holdSlot(@McpToolParam(description = "the day") String day) {
			return ToolResult.of("S-" + day + "-" + slots.incrementAndGet());
		}

		Reconciliation<String> findSlot(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		static final java.util.concurrent.atomic.AtomicInteger trucks = new java.util.concurrent.atomic.AtomicInteger();

		@McpTool(name = "reserve_truck", description = "Reserve a truck; over 10 tonnes a person approves it first")
		@IdempotentTool(reconcile = "findTruck", approval = "truckApproval")
		public ToolResult<String> reserveTruck(@McpToolParam(description = "the tonnes") int tonnes) {
			return ToolResult.of("T-" + tonnes + "-" + trucks.incrementAndGet());
		}

		io.idempotency.Approval truckApproval(int tonnes) {
			return (tonnes > 10) ? io.idempotency.Approval.required("a truck over 10 tonnes (" + tonnes + ")")
					: io.idempotency.Approval.notRequired();
		}

		Reconciliation<String> findTruck(IdempotencyKey key) {
			return Reconciliation.notFound();
		}


		private final JdbcTemplate jdbc;

		public QuoteTools(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			jdbc.execute("CREATE TABLE IF NOT EXISTS drafts (id BIGINT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(50), quantity INT)");
		}

		@McpTool(name = "draft_quote", description = "Draft a quote", generateOutputSchema = true,
				annotations = @McpTool.McpAnnotations(destructiveHint = false))
		@IdempotentTool(transactional = true)
		public Draft draftQuote(@McpToolParam(description = "the SKU") String sku,
				@McpToolParam(description = "how many") int quantity) {
			this.jdbc.update("INSERT INTO drafts (sku, quantity) VALUES (?, ?)", sku, quantity);
			return new Draft(this.jdbc.queryForObject("SELECT MAX(id) FROM drafts", Long.class), sku, quantity);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Server {

		/** Stands in for the application's authentication: the request's user is named in this header. */
		static final String USER_HEADER = "X-Test-User";

		@Bean
		jakarta.servlet.Filter authenticatedUsers() {
			return (request, response, chain) -> {
				jakarta.servlet.http.HttpServletRequest http = (jakarta.servlet.http.HttpServletRequest) request;
				String user = http.getHeader(USER_HEADER);
				chain.doFilter((user == null) ? request : new jakarta.servlet.http.HttpServletRequestWrapper(http) {
					@Override
					public java.security.Principal getUserPrincipal() {
						return () -> user;
					}
				}, response);
			};
		}

		@Bean
		TicketTools ticketTools(JdbcTemplate jdbc) {
			return new TicketTools(jdbc);
		}

		@Bean
		ToolCallbackProvider ticketToolCallbacks(TicketTools tools) {
			return MethodToolCallbackProvider.builder().toolObjects(tools).build();
		}

		@Bean
		QuoteTools quoteTools(JdbcTemplate jdbc) {
			return new QuoteTools(jdbc);
		}

		@Bean
		ReportTools reportTools(JdbcTemplate jdbc) {
			return new ReportTools(jdbc);
		}

	}

}
