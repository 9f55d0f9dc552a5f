package io.idempotency.autoconfigure.ai.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.Reconciliation;
import io.idempotency.ai.IdempotentMcpTools;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP tool written by hand (a tool specification, no annotated method) made idempotent with
 * {@link IdempotentMcpTools#idempotent}, on Spring AI's MCP server over Streamable HTTP, called by the MCP
 * Java SDK's client.
 */
@SpringBootTest(classes = McpHandWrittenToolTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.name=refunds", "spring.datasource.url=jdbc:h2:mem:mcp-hand-written;DB_CLOSE_DELAY=-1" })
class McpHandWrittenToolTest {

	private static final JsonMapper JSON = new JsonMapper();

	@LocalServerPort
	int port;

	@Autowired
	JdbcTemplate jdbc;

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
	void theToolAdvertisesIdempotentHint() {
		McpSchema.Tool refund = this.client.listTools()
			.tools()
			.stream()
			.filter((tool) -> tool.name().equals("refund"))
			.findFirst()
			.orElseThrow();

		assertThat(refund.annotations().idempotentHint()).isTrue();
		assertThat(refund.annotations().destructiveHint()).as("its own hints are kept").isTrue();
	}

	@Test
	void theSameCallTwiceInOneRunRefundsOnceAndTheRepeatIsToldItWasReplayedANewRunRefundsAgain() {
		Map<String, Object> run = Map.of("io.idempotency/runId", "refund-run-1");
		CallToolResult first = this.client.callTool(refund("A-1", 30, run));
		CallToolResult again = this.client.callTool(new CallToolRequest("refund", Map.of("amount", 30, "order", "A-1"), run));

		assertThat(refunds("A-1")).isEqualTo(1);
		assertThat(first.isError()).isFalse();
		assertThat(text(first)).isEqualTo("refunded 30 on A-1");
		assertThat(again.isError()).isFalse();
		JsonNode notice = JSON.readTree(text(again));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("result").asString()).isEqualTo("refunded 30 on A-1");
		McpServerRoundTripTest.assertAnswer(again, "replayed", true);
		McpServerRoundTripTest.assertAnswer(first, "executed", false);

		CallToolResult nextRun = this.client.callTool(refund("A-1", 30, Map.of("io.idempotency/runId", "refund-run-2")));
		assertThat(nextRun.isError()).isFalse();
		assertThat(refunds("A-1")).as("a new run is a new action").isEqualTo(2);
	}

	@Test
	void anErrorResultIsTheCallsFailureAndARepeatIsToldThePreviousAttemptFailedWithoutRunning() {
		int before = Server.attempts.get();
		Map<String, Object> run = Map.of("io.idempotency/runId", "refund-run-3");
		CallToolResult refused = this.client.callTool(refund("CLOSED-9", 30, run));
		CallToolResult again = this.client.callTool(refund("CLOSED-9", 30, run));

		assertThat(refused.isError()).isTrue();
		assertThat(text(refused)).isEqualTo("order CLOSED-9 is closed");
		McpServerRoundTripTest.assertAnswer(refused, "failed", false);
		assertThat(again.isError()).isTrue();
		JsonNode answer = JSON.readTree(text(again));
		assertThat(answer.get("kind").asString()).isEqualTo("previous_attempt_failed");
		assertThat(answer.get("message").asString()).contains("order CLOSED-9 is closed");
		McpServerRoundTripTest.assertAnswer(again, "previous_attempt_failed", true);
		assertThat(Server.attempts).hasValue(before + 1);
	}

	@Test
	void aCallWithoutARunIsRefusedAndNothingIsDone() {
		CallToolResult result = this.client.callTool(refund("A-2", 5, null));

		assertThat(result.isError()).isTrue();
		assertThat(JSON.readTree(text(result)).get("kind").asString()).isEqualTo("refused_without_run");
		McpServerRoundTripTest.assertAnswer(result, "refused_without_run", false);
		assertThat(refunds("A-2")).isZero();
	}

	@Test
	void aFunctionToolCallbackServedOverMcpAdvertisesIdempotentHintAndAnswersARepeatFromItsRow() {
		McpSchema.Tool note = this.client.listTools()
			.tools()
			.stream()
			.filter((tool) -> tool.name().equals("add_note"))
			.findFirst()
			.orElseThrow();
		assertThat(note.annotations()).isNotNull();
		assertThat(note.annotations().idempotentHint()).isTrue();

		int before = Server.notes.get();
		Map<String, Object> run = Map.of("io.idempotency/runId", "note-run-1");
		CallToolResult first = this.client.callTool(new CallToolRequest("add_note", Map.of("text", "call back"), run));
		CallToolResult again = this.client.callTool(new CallToolRequest("add_note", Map.of("text", "call back"), run));

		assertThat(Server.notes).hasValue(before + 1);
		assertThat(text(first)).contains("note " + (before + 1));
		JsonNode notice = JSON.readTree(text(again));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("result").toString()).contains("note " + (before + 1));
		McpServerRoundTripTest.assertAnswer(first, "executed", false);
		McpServerRoundTripTest.assertAnswer(again, "replayed", true);
	}

	@Test
	void aRepeatThatRephrasesADetailOutsideTheKeyReadsTheResultAndWhatWasNotApplied() {
		int before = Server.contacts.get();
		Map<String, Object> run = Map.of("io.idempotency/runId", "contact-run-1");
		this.client.callTool(new CallToolRequest("log_contact", Map.of("account", "acme", "note", "called back"), run));
		CallToolResult again = this.client.callTool(new CallToolRequest("log_contact",
				Map.of("account", "acme", "note", "Called them back about the quote"), run));

		assertThat(Server.contacts).hasValue(before + 1);
		assertThat(again.isError()).isFalse();
		JsonNode notice = JSON.readTree(text(again));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed_different_details");
		assertThat(notice.get("differentDetails").get(0).asString()).isEqualTo("note");
		McpServerRoundTripTest.assertAnswer(again, "replayed_different_details", true);
		assertThat((String) again.meta().get("io.idempotency/message")).contains("were not applied: note");
	}

	@Test
	void aTransactionalHandWrittenToolCommitsItsWritesWithItsClaimAndAnErrorResultRollsBothBack() {
		Map<String, Object> run = Map.of("io.idempotency/runId", "close-run-1");
		CallToolResult closed = this.client.callTool(close("B-1", run));
		CallToolResult again = this.client.callTool(close("B-1", run));

		assertThat(closed.isError()).isFalse();
		assertThat(JSON.readTree(text(again)).get("kind").asString()).isEqualTo("replayed");
		McpServerRoundTripTest.assertAnswer(closed, "executed", false);
		assertThat(closures("B-1")).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT status FROM tool_audit WHERE tool = 'close_order' AND run_id = ?",
				String.class, "close-run-1")).isEqualTo("succeeded");

		CallToolResult refused = this.client.callTool(close("LOCKED-1", run));
		CallToolResult retried = this.client.callTool(close("LOCKED-1", run));
		assertThat(refused.isError()).isTrue();
		assertThat(retried.isError()).as("a rolled-back call runs again").isTrue();
		assertThat(text(retried)).isEqualTo("order LOCKED-1 is locked");
		McpServerRoundTripTest.assertAnswer(retried, "failed", false);
		assertThat(closures("LOCKED-1")).as("the error result's writes rolled back with its claim").isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM tool_audit WHERE tool = 'close_order' AND run_id = ?"
				+ " AND arguments LIKE '%LOCKED-1%'", Integer.class, "close-run-1")).isZero();
	}

	/**
	 * Twice as many calls as {@code boundedElastic} has threads, each invoice called twice, at once: on an
	 * asynchronous server, the tool's handler does its blocking work on {@code boundedElastic}, as Reactor
	 * asks, so a call that held one of its threads while it waited for its handler would leave the handlers
	 * none. All complete, and each invoice is paid once.
	 */
	@Test
	void moreConcurrentCallsThanTheSchedulerHasThreadsAllCompleteAndEachInvoiceIsPaidOnce() throws Exception {
		int invoices = Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE + 4;
		int calls = 2 * invoices;
		List<McpSyncClient> clients = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			clients.add(McpServerRoundTripTest.client(this.port));
		}
		ExecutorService callers = Executors.newFixedThreadPool(calls);
		try {
			for (int round = 0; round < 5; round++) {
				Map<String, Object> run = Map.of("io.idempotency/runId", "pay-run-" + round + "-" + System.nanoTime());
				String prefix = "INV-" + System.nanoTime() + "-";
				CyclicBarrier start = new CyclicBarrier(calls);
				List<Future<CallToolResult>> answers = new ArrayList<>();
				for (int i = 0; i < calls; i++) {
					McpSyncClient client = clients.get(i % clients.size());
					CallToolRequest request = new CallToolRequest("pay_invoice", Map.of("invoice", prefix + (i % invoices)), run);
					answers.add(callers.submit(() -> {
						start.await();
						return client.callTool(request);
					}));
				}
				for (int i = 0; i < calls; i++) {
					CallToolResult answer = answers.get(i).get(90, TimeUnit.SECONDS);
					String text = text(answer);
					if (text.startsWith("paid ")) {
						assertThat(answer.isError()).isFalse();
						McpServerRoundTripTest.assertAnswer(answer, "executed", false);
						assertThat(text).isEqualTo("paid " + prefix + (i % invoices));
					}
					else {
						assertThat(JSON.readTree(text).get("kind").asString()).as("round %d: %s", round, text)
							.isIn("replayed", "in_progress");
						McpServerRoundTripTest.assertAnswer(answer, JSON.readTree(text).get("kind").asString(), true);
					}
				}
				for (int i = 0; i < invoices; i++) {
					assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM payments WHERE invoice = ?", Integer.class,
							prefix + i))
						.as("round %d: invoice %d paid once", round, i)
						.isEqualTo(1);
				}
			}
		}
		finally {
			callers.shutdownNow();
			clients.forEach(McpSyncClient::closeGracefully);
		}
	}

	/**
	 * A call without a {@code _meta} run, in an HTTP request whose {@code Idempotency-Key} header names one
	 * ({@code idempotency.http.run-header}): it runs in that run, and the request retried with the same header
	 * is replayed.
	 */
	@Test
	void aCallWithoutAMetaRunRunsInTheRunOfItsRequestsIdempotencyKeyHeader() {
		String runId = "header-refund-run-" + System.nanoTime();
		McpSyncClient first = McpServerRoundTripTest.clientWithHeader(this.port, "Idempotency-Key", runId);
		McpSyncClient retried = McpServerRoundTripTest.clientWithHeader(this.port, "Idempotency-Key", runId);
		McpSyncClient next = McpServerRoundTripTest.clientWithHeader(this.port, "Idempotency-Key", runId + "-next");
		try {
			CallToolResult refunded = first.callTool(refund("H-7", 12, null));
			CallToolResult again = retried.callTool(refund("H-7", 12, null));

			assertThat(refunded.isError()).as(text(refunded)).isFalse();
			assertThat(text(refunded)).isEqualTo("refunded 12 on H-7");
			assertThat(again.isError()).as(text(again)).isFalse();
			assertThat(JSON.readTree(text(again)).get("kind").asString()).isEqualTo("replayed");
			McpServerRoundTripTest.assertAnswer(again, "replayed", true);
			assertThat(refunds("H-7")).isEqualTo(1);

			CallToolResult nextRun = next.callTool(refund("H-7", 12, null));
			assertThat(nextRun.isError()).as(text(nextRun)).isFalse();
			assertThat(refunds("H-7")).as("another request is another action").isEqualTo(2);
		}
		finally {
			first.closeGracefully();
			retried.closeGracefully();
			next.closeGracefully();
		}
	}

	private static CallToolRequest close(String order, Map<String, Object> meta) {
		return new CallToolRequest("close_order", Map.of("order", order), meta);
	}

	private int closures(String order) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM closures WHERE order_id = ?", Integer.class, order);
	}

	private static CallToolRequest refund(String order, int amount, Map<String, Object> meta) {
		return new CallToolRequest("refund", Map.of("order", order, "amount", amount), meta);
	}

	private static String text(CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

	private int refunds(String order) {
		this.jdbc.execute("CREATE TABLE IF NOT EXISTS refunds (id BIGINT AUTO_INCREMENT PRIMARY KEY, order_id VARCHAR(50),"
				+ " amount INT)");
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM refunds WHERE order_id = ?", Integer.class, order);
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Server {

		static final java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();

		/** Released by a test: until then, the payment provider behind hold_refund has not answered. */
		static final java.util.concurrent.CountDownLatch providerAnswers = new java.util.concurrent.CountDownLatch(1);

		@Bean
		IdempotentFunction<CallToolResult> refund() {
			return IdempotentFunction.builder("refund", CallToolResult.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.build();
		}

		@Bean
		IdempotentFunction<CallToolResult> payInvoice(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS payments (id BIGINT AUTO_INCREMENT PRIMARY KEY, invoice VARCHAR(100))");
			return IdempotentFunction.builder("pay_invoice", CallToolResult.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.build();
		}

		private static McpSchema.Tool payInvoiceTool() {
			return McpSchema.Tool.builder()
				.name("pay_invoice")
				.description("Pay an invoice")
				.inputSchema(Map.of("type", "object", "properties", Map.of("invoice", Map.of("type", "string"))))
				.build();
		}

		/** Blocking work: a write through JDBC. */
		private static CallToolResult payInvoice(JdbcTemplate jdbc, CallToolRequest request) {
			String invoice = (String) request.arguments().get("invoice");
			jdbc.update("INSERT INTO payments (invoice) VALUES (?)", invoice);
			return CallToolResult.builder().content(List.of(McpSchema.TextContent.builder("paid " + invoice).build())).build();
		}

		/**
		 * On an asynchronous server, blocking work is done as Reactor asks: on {@code boundedElastic} (but for a
		 * transactional tool, whose writes belong in its claim's transaction, on the thread that subscribes).
		 */
		private static Mono<CallToolResult> onBoundedElastic(java.util.concurrent.Callable<CallToolResult> work) {
			return Mono.fromCallable(work).subscribeOn(Schedulers.boundedElastic());
		}

		static final java.util.concurrent.atomic.AtomicInteger notes = new java.util.concurrent.atomic.AtomicInteger();

		/** A tool that is not a method: a function callback, served by the MCP server as any tool callback. */
		@Bean
		org.springframework.ai.tool.ToolCallback addNote(IdempotentCalls calls) {
			org.springframework.ai.tool.ToolCallback callback = org.springframework.ai.tool.function.FunctionToolCallback
				.builder("add_note", (Note note) -> "note " + notes.incrementAndGet() + ": " + note.text())
				.description("Add a note to the account")
				.inputType(Note.class)
				.build();
			return IdempotentToolCallbacks.idempotent(callback, IdempotentFunction.builder("add_note", String.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.build(), calls);
		}

		record Note(String text) {
		}

		static final java.util.concurrent.atomic.AtomicInteger contacts = new java.util.concurrent.atomic.AtomicInteger();

		/** Keyed on the account alone: a repeat that rephrases the note is the same contact. */
		@Bean
		org.springframework.ai.tool.ToolCallback logContact(IdempotentCalls calls) {
			org.springframework.ai.tool.ToolCallback callback = org.springframework.ai.tool.function.FunctionToolCallback
				.builder("log_contact", (Contact contact) -> "contact " + contacts.incrementAndGet() + " with "
						+ contact.account())
				.description("Log a contact with an account")
				.inputType(Contact.class)
				.build();
			return IdempotentToolCallbacks.idempotent(callback, IdempotentFunction.builder("log_contact", String.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.keyArguments("account")
				.build(), calls);
		}

		record Contact(String account, String note) {
		}

		/** For a synchronous server: Spring AI's MCP server takes the tools of List beans. */
		@Bean
		List<McpServerFeatures.SyncToolSpecification> refundTools(JdbcTemplate jdbc, IdempotentFunction<CallToolResult> refund,
				IdempotentFunction<CallToolResult> closeOrderFunction, IdempotentFunction<CallToolResult> payInvoice,
				IdempotentCalls calls) {
			McpServerFeatures.SyncToolSpecification handWritten = McpServerFeatures.SyncToolSpecification.builder()
				.tool(tool())
				.callHandler((exchange, request) -> refund(jdbc, request))
				.build();
			McpServerFeatures.SyncToolSpecification closeOrder = McpServerFeatures.SyncToolSpecification.builder()
				.tool(closeOrderTool())
				.callHandler((exchange, request) -> closeOrder(jdbc, request))
				.build();
			McpServerFeatures.SyncToolSpecification pay = McpServerFeatures.SyncToolSpecification.builder()
				.tool(payInvoiceTool())
				.callHandler((exchange, request) -> payInvoice(jdbc, request))
				.build();
			return List.of(IdempotentMcpTools.idempotent(handWritten, refund, calls),
					IdempotentMcpTools.idempotent(closeOrder, closeOrderFunction, calls),
					IdempotentMcpTools.idempotent(pay, payInvoice, calls));
		}

		/** For a stateless synchronous server. */
		@Bean
		List<McpStatelessServerFeatures.SyncToolSpecification> statelessRefundTools(JdbcTemplate jdbc,
				IdempotentFunction<CallToolResult> refund, IdempotentFunction<CallToolResult> closeOrderFunction,
				IdempotentFunction<CallToolResult> payInvoice, IdempotentCalls calls) {
			McpStatelessServerFeatures.SyncToolSpecification handWritten = McpStatelessServerFeatures.SyncToolSpecification
				.builder()
				.tool(tool())
				.callHandler((context, request) -> refund(jdbc, request))
				.build();
			McpStatelessServerFeatures.SyncToolSpecification closeOrder = McpStatelessServerFeatures.SyncToolSpecification
				.builder()
				.tool(closeOrderTool())
				.callHandler((context, request) -> closeOrder(jdbc, request))
				.build();
			McpStatelessServerFeatures.SyncToolSpecification pay = McpStatelessServerFeatures.SyncToolSpecification.builder()
				.tool(payInvoiceTool())
				.callHandler((context, request) -> payInvoice(jdbc, request))
				.build();
			return List.of(IdempotentMcpTools.idempotent(handWritten, refund, calls),
					IdempotentMcpTools.idempotent(closeOrder, closeOrderFunction, calls),
					IdempotentMcpTools.idempotent(pay, payInvoice, calls));
		}

		/** For a stateless asynchronous server. */
		@Bean
		List<McpStatelessServerFeatures.AsyncToolSpecification> statelessAsyncRefundTools(JdbcTemplate jdbc,
				IdempotentFunction<CallToolResult> refund, IdempotentFunction<CallToolResult> closeOrderFunction,
				IdempotentFunction<CallToolResult> payInvoice, IdempotentCalls calls) {
			McpStatelessServerFeatures.AsyncToolSpecification handWritten = McpStatelessServerFeatures.AsyncToolSpecification
				.builder()
				.tool(tool())
				.callHandler((context, request) -> onBoundedElastic(() -> refund(jdbc, request)))
				.build();
			McpStatelessServerFeatures.AsyncToolSpecification closeOrder = McpStatelessServerFeatures.AsyncToolSpecification
				.builder()
				.tool(closeOrderTool())
				.callHandler((context, request) -> reactor.core.publisher.Mono.fromCallable(() -> closeOrder(jdbc, request)))
				.build();
			McpStatelessServerFeatures.AsyncToolSpecification pay = McpStatelessServerFeatures.AsyncToolSpecification.builder()
				.tool(payInvoiceTool())
				.callHandler((context, request) -> onBoundedElastic(() -> payInvoice(jdbc, request)))
				.build();
			return List.of(IdempotentMcpTools.idempotent(handWritten, refund, calls),
					IdempotentMcpTools.idempotent(closeOrder, closeOrderFunction, calls),
					IdempotentMcpTools.idempotent(pay, payInvoice, calls));
		}

		/** A transactional tool: its writes commit with its claim, and an error result rolls both back. */
		@Bean
		IdempotentFunction<CallToolResult> closeOrderFunction(JdbcTemplate jdbc) {
			// Created here: DDL in the tool's transaction would commit the claim with it (H2, MariaDB).
			jdbc.execute("CREATE TABLE IF NOT EXISTS closures (order_id VARCHAR(50))");
			return IdempotentFunction.builder("close_order", CallToolResult.class).transactional().build();
		}

		private static McpSchema.Tool closeOrderTool() {
			return McpSchema.Tool.builder()
				.name("close_order")
				.description("Close an order")
				.inputSchema(Map.of("type", "object", "properties", Map.of("order", Map.of("type", "string"))))
				.build();
		}

		private static CallToolResult closeOrder(JdbcTemplate jdbc, CallToolRequest request) {
			String order = (String) request.arguments().get("order");
			jdbc.update("INSERT INTO closures (order_id) VALUES (?)", order);
			boolean locked = order.startsWith("LOCKED");
			return CallToolResult.builder()
				.content(List.of(McpSchema.TextContent.builder(locked ? "order " + order + " is locked" : "closed " + order)
					.build()))
				.isError(locked)
				.build();
		}

		/** For an asynchronous server: the same tool, its handler a Mono. */
		@Bean
		List<McpServerFeatures.AsyncToolSpecification> asyncRefundTools(JdbcTemplate jdbc,
				IdempotentFunction<CallToolResult> refund, IdempotentFunction<CallToolResult> closeOrderFunction,
				IdempotentFunction<CallToolResult> payInvoice, IdempotentCalls calls) {
			McpServerFeatures.AsyncToolSpecification handWritten = McpServerFeatures.AsyncToolSpecification.builder()
				.tool(tool())
				.callHandler((exchange, request) -> onBoundedElastic(() -> refund(jdbc, request)))
				.build();
			IdempotentFunction<CallToolResult> holdRefund = IdempotentFunction.builder("hold_refund", CallToolResult.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.build();
			McpServerFeatures.AsyncToolSpecification held = McpServerFeatures.AsyncToolSpecification.builder()
				.tool(McpSchema.Tool.builder()
					.name("hold_refund")
					.description("Refund an order once the payment provider answers")
					.inputSchema(Map.of("type", "object", "properties", Map.of("order", Map.of("type", "string"))))
					.build())
				.callHandler((exchange, request) -> onBoundedElastic(() -> {
					providerAnswers.await();
					return refund(jdbc, new CallToolRequest("refund", Map.of("order", request.arguments().get("order"), "amount", 1), null));
				}))
				.build();
			McpServerFeatures.AsyncToolSpecification closeOrder = McpServerFeatures.AsyncToolSpecification.builder()
				.tool(closeOrderTool())
				.callHandler((exchange, request) -> reactor.core.publisher.Mono.fromCallable(() -> closeOrder(jdbc, request)))
				.build();
			McpServerFeatures.AsyncToolSpecification pay = McpServerFeatures.AsyncToolSpecification.builder()
				.tool(payInvoiceTool())
				.callHandler((exchange, request) -> onBoundedElastic(() -> payInvoice(jdbc, request)))
				.build();
			return List.of(IdempotentMcpTools.idempotent(handWritten, refund, calls),
					IdempotentMcpTools.idempotent(held, holdRefund, calls),
					IdempotentMcpTools.idempotent(closeOrder, closeOrderFunction, calls),
					IdempotentMcpTools.idempotent(pay, payInvoice, calls));
		}

		private static McpSchema.Tool tool() {
			return McpSchema.Tool.builder()
				.name("refund")
				.description("Refund an order")
				.inputSchema(Map.of("type", "object", "properties",
						Map.of("order", Map.of("type", "string"), "amount", Map.of("type", "integer"))))
				.annotations(new McpSchema.ToolAnnotations(null, null, true, null, null, null))
				.build();
		}

		private static CallToolResult refund(JdbcTemplate jdbc, CallToolRequest request) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS refunds (id BIGINT AUTO_INCREMENT PRIMARY KEY, order_id VARCHAR(50),"
					+ " amount INT)");
			String order = (String) request.arguments().get("order");
			int amount = ((Number) request.arguments().get("amount")).intValue();
			if (order.startsWith("CLOSED")) {
				attempts.incrementAndGet();
				return CallToolResult.builder()
					.content(List.of(McpSchema.TextContent.builder("order " + order + " is closed").build()))
					.isError(true)
					.build();
			}
			jdbc.update("INSERT INTO refunds (order_id, amount) VALUES (?, ?)", order, amount);
			return CallToolResult.builder()
				.content(List.of(McpSchema.TextContent.builder("refunded " + amount + " on " + order).build()))
				.build();
		}

	}

}
