package io.idempotency.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.Approval;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.reconcile.Approvals;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.test.ai.ScriptedChatModel;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.McpToolUtils;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tool that needs a person's approval, on every path of Spring AI and MCP, on the in-memory ledger: the first
 * call reads {@code awaiting_approval} and nothing runs, and so does every repeat; once approved, the same call in
 * the same run runs once, and its repeat is a replay; once rejected, a repeat reads {@code refused_not_approved}
 * with the person's reason, and nothing runs. An MCP client reads the kind in {@code _meta} too, and both answers
 * as error results, as one in progress.
 */
class ApprovalPathsTest {

	private static final JsonMapper JSON = new JsonMapper();

	private static final String RUN = "approval-run";

	private static final Map<String, Object> TOOL_CONTEXT = Map.of("runId", RUN, "userId", "rep-1");

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	public static class RefundTools {

		/** Static: the bean is a class-based proxy, whose own fields are not its target's. */
		static final AtomicInteger refunds = new AtomicInteger();

		static final AtomicInteger discounts = new AtomicInteger();

		@Tool(name = "refund", description = "Refund an order")
		@IdempotentTool(reconcile = "findRefund", requiresApproval = true)
		public String refund(String order, ToolContext toolContext) {
			return "refund " + refunds.incrementAndGet() + " of " + order;
		}

		@Tool(name = "hold_refund", description = "Hold a refund of an order")
		@IdempotentTool(reconcile = "findRefund", requiresApproval = true)
		public ToolResult<String> holdRefund(String order, ToolContext toolContext) {
			return ToolResult.of("refund " + refunds.incrementAndGet() + " of " + order);
		}

		@Tool(name = "discount", description = "Discount an order")
		@IdempotentTool(reconcile = "findRefund", approval = "discountApproval")
		public String discount(String order, int percent, ToolContext toolContext) {
			return "discount " + discounts.incrementAndGet() + " of " + percent + "%";
		}

		Approval discountApproval(int percent) {
			return (percent > 10) ? Approval.required("a discount over 10%") : Approval.notRequired();
		}

		Reconciliation<String> findRefund(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** What the model (or the MCP client) read of one call. */
	record Read(String text, Boolean isError, Map<String, Object> meta) {

		JsonNode json() {
			return JSON.readTree(this.text);
		}

		String kind() {
			JsonNode json = this.text.startsWith("{") ? json() : null;
			return (json != null && json.has("kind")) ? json.get("kind").asString() : null;
		}

	}

	@FunctionalInterface
	interface Path {

		Read call(String tool, String argumentsJson);

	}

	private final InMemoryLedger ledger = new InMemoryLedger();

	private final Approvals approvals = new Approvals(this.ledger.approvals(), Duration.ofHours(1), (event) -> {
	});

	private final IdempotentMcpTools mcp = new IdempotentMcpTools(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY,
			Set.of("refund", "hold_refund", "discount", "refund_by_hand"));

	/** The exchange of a session, as the server gives each call: Spring AI puts it in the tool context. */
	private final McpAsyncServerExchange exchange = new McpAsyncServerExchange("session-1", null, null, null,
			McpTransportContext.EMPTY);

	private AnnotationConfigApplicationContext context;

	private RefundTools tools;

	@BeforeEach
	void start() {
		RefundTools.refunds.set(0);
		RefundTools.discounts.set(0);
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.registerBean(RefundTools.class, () -> new RefundTools());
		this.context.register(Enabled.class);
		this.context.refresh();
		this.tools = this.context.getBean(RefundTools.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void aToolCallbackCalledDirectly() {
		approvalCycle("refund", direct(), false);
		approvalCycle("hold_refund", direct(), false);
	}

	@Test
	void springAisToolLoop() {
		approvalCycle("refund", chat(false), false);
	}

	@Test
	void springAisToolLoopStreamed() {
		approvalCycle("refund", chat(true), false);
	}

	@Test
	void aSynchronousMcpServer() {
		approvalCycle("refund", mcpSync(), true);
		approvalCycle("hold_refund", mcpSync(), true);
	}

	@Test
	void aStatelessSynchronousMcpServer() {
		approvalCycle("refund", mcpStatelessSync(), true);
	}

	/** The run goes with the call to the thread the tool runs on, as on a server with context propagation. */
	@Test
	void anAsynchronousMcpServer() {
		withContextPropagation(() -> {
			approvalCycle("refund", mcpAsync(), true);
			approvalCycle("hold_refund", mcpAsync(), true);
		});
	}

	@Test
	void aStatelessAsynchronousMcpServer() {
		withContextPropagation(() -> approvalCycle("refund", mcpStatelessAsync(), true));
	}

	private static void withContextPropagation(Runnable test) {
		Hooks.enableAutomaticContextPropagation();
		try {
			test.run();
		}
		finally {
			Hooks.disableAutomaticContextPropagation();
		}
	}

	@Test
	void handWrittenMcpToolsCalledAsFunctions() {
		AtomicInteger runs = new AtomicInteger();
		IdempotentCalls calls = this.context.getBean(IdempotentCalls.class);
		McpSchema.Tool tool = McpSchema.Tool.builder().name("refund_by_hand").inputSchema(Map.of("type", "object")).build();
		IdempotentFunction<CallToolResult> refund = IdempotentFunction.builder("refund_by_hand", CallToolResult.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.requiresApproval()
			.build();
		McpServerFeatures.SyncToolSpecification sync = this.mcp.decorate(IdempotentMcpTools.idempotent(
				McpServerFeatures.SyncToolSpecification.builder()
					.tool(tool)
					.callHandler((exchange, request) -> refunded(runs, request))
					.build(),
				refund, calls));
		McpServerFeatures.AsyncToolSpecification async = this.mcp.decorate(IdempotentMcpTools.idempotent(
				McpServerFeatures.AsyncToolSpecification.builder()
					.tool(tool)
					.callHandler((exchange, request) -> Mono.fromCallable(() -> refunded(runs, request)))
					.build(),
				refund, calls));

		approvalCycle("refund_by_hand", mcp((request) -> sync.callHandler().apply(null, request)), true, runs);
		approvalCycle("refund_by_hand", mcp((request) -> async.callHandler().apply(null, request).block(Duration.ofSeconds(30))),
				true, runs);
	}

	@Test
	void aToolWhoseApprovalMethodAsksItOfSomeCallsOnly() {
		Path direct = direct();

		Read small = direct.call("discount", "{\"order\":\"O-1\",\"percent\":5}");
		Read large = direct.call("discount", "{\"order\":\"O-1\",\"percent\":25}");

		assertThat(small.text()).isEqualTo("\"discount 1 of 5%\"");
		assertAwaiting(large);
		assertThat(large.json().get("message").asString()).contains("a discount over 10%");
		assertThat(RefundTools.discounts).hasValue(1);
		approve("discount");
		assertThat(chat(false).call("discount", "{\"order\":\"O-1\",\"percent\":25}").text())
			.isEqualTo("\"discount 2 of 25%\"");
		assertThat(direct.call("discount", "{\"percent\":25,\"order\":\"O-1\"}").kind()).isEqualTo("replayed");
		assertThat(RefundTools.discounts).hasValue(2);
	}

	private void approvalCycle(String tool, Path path, boolean mcp) {
		approvalCycle(tool, path, mcp, RefundTools.refunds);
	}

	/**
	 * Waits, repeats, is approved and runs once, is replayed; another order waits, is rejected, and its repeat is
	 * refused with the reason. Each call of the same action in the same run.
	 */
	private void approvalCycle(String tool, Path path, boolean mcp, AtomicInteger runs) {
		int before = runs.get();
		String order = tool + "-" + before + "-" + System.nanoTime();
		String arguments = "{\"order\":\"" + order + "\"}";

		Read first = path.call(tool, arguments);
		Read repeat = path.call(tool, arguments);

		assertAwaiting(first);
		assertAwaiting(repeat);
		assertThat(runs).as("nothing runs while the call waits").hasValue(before);
		if (mcp) {
			assertMcp(first, "awaiting_approval");
			assertMcp(repeat, "awaiting_approval");
		}

		approve(tool);
		Read executed = path.call(tool, arguments);
		Read replayed = path.call(tool, arguments);

		assertThat(runs).as("the approved call runs once").hasValue(before + 1);
		assertThat(executed.text()).contains("refund " + (before + 1) + " of " + order);
		assertThat(executed.kind()).isIn(null, "executed");
		assertThat(replayed.kind()).isEqualTo("replayed");
		assertThat(replayed.text()).contains("refund " + (before + 1) + " of " + order);
		if (mcp) {
			assertThat(executed.isError()).isNotEqualTo(Boolean.TRUE);
			assertThat(replayed.meta()).containsEntry(IdempotentMcpTools.REPLAYED_META_KEY, true);
		}

		String rejectedArguments = "{\"order\":\"" + order + "-rejected\"}";
		assertAwaiting(path.call(tool, rejectedArguments));
		this.approvals.reject(waiting(tool), "ops", "refunded by cheque already");
		Read refused = path.call(tool, rejectedArguments);
		Read refusedAgain = path.call(tool, rejectedArguments);

		for (Read read : List.of(refused, refusedAgain)) {
			assertThat(read.kind()).isEqualTo("refused_not_approved");
			assertThat(read.json().get("replayed").asBoolean()).isFalse();
			assertThat(read.json().get("message").asString()).contains("refunded by cheque already")
				.contains("not approve");
			if (mcp) {
				assertMcp(read, "refused_not_approved");
			}
		}
		assertThat(runs).as("a rejected call never runs").hasValue(before + 1);
	}

	private static void assertAwaiting(Read read) {
		assertThat(read.kind()).as(read.text()).isEqualTo("awaiting_approval");
		JsonNode json = read.json();
		assertThat(json.get("replayed").asBoolean()).isFalse();
		assertThat(json.get("message").asString()).contains("a person must approve this action")
			.contains("nothing has been done")
			.contains("Do not call it again")
			.contains("awaits approval");
	}

	private static void assertMcp(Read read, String kind) {
		assertThat(read.isError()).as("an MCP result of " + kind).isTrue();
		assertThat(read.meta()).containsEntry(IdempotentMcpTools.KIND_META_KEY, kind)
			.containsEntry(IdempotentMcpTools.REPLAYED_META_KEY, false);
		assertThat((String) read.meta().get(IdempotentMcpTools.MESSAGE_META_KEY)).isNotBlank();
	}

	private void approve(String tool) {
		this.approvals.approve(waiting(tool), "ops", "ok");
	}

	private IdempotencyKey waiting(String tool) {
		return this.approvals.awaiting(tool, 0, 10).get(0).entry().key();
	}

	private ToolCallback callback(String tool) {
		for (ToolCallback callback : IdempotentToolCallbacks.from(this.tools)) {
			if (callback.getToolDefinition().name().equals(tool)) {
				return callback;
			}
		}
		throw new IllegalArgumentException("no tool " + tool);
	}

	private Path direct() {
		return (tool, arguments) -> new Read(callback(tool).call(arguments, new ToolContext(TOOL_CONTEXT)), null, null);
	}

	/** Each call one turn of a model in Spring AI's tool loop, in the same run. */
	private Path chat(boolean streamed) {
		return (tool, arguments) -> {
			ScriptedChatModel model = new ScriptedChatModel().callsTool(tool, arguments).answers("Done.");
			ChatClient.ChatClientRequestSpec prompt = ChatClient.builder(model)
				.defaultAdvisors(ToolCallingAdvisor.builder()
					.toolCallingManager(IdempotentToolCallingManager.of(ToolCallingManager.builder().build()))
					.build())
				.build()
				.prompt()
				.user("Refund the order")
				.tools(this.tools)
				.toolContext(TOOL_CONTEXT);
			String answer = streamed
					? String.join("", prompt.stream().content().collectList().block(Duration.ofSeconds(30)))
					: prompt.call().content();
			assertThat(answer).isEqualTo("Done.");
			model.assertScriptUsed();
			return new Read(model.toolResponsesRead().get(0).responseData(), null, null);
		};
	}

	private static CallToolRequest request(String tool, String arguments) {
		@SuppressWarnings("unchecked")
		Map<String, Object> values = JSON.readValue(arguments, Map.class);
		return new CallToolRequest(tool, values, Map.of(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, RUN));
	}

	private static Path mcp(java.util.function.Function<CallToolRequest, CallToolResult> server) {
		return (tool, arguments) -> {
			CallToolResult result = server.apply(request(tool, arguments));
			String text = ((McpSchema.TextContent) result.content().get(0)).text();
			return new Read(text, result.isError(), result.meta());
		};
	}

	private Path mcpSync() {
		return mcp((request) -> this.mcp.decorate(McpToolUtils.toSyncToolSpecification(callback(request.name())))
			.callHandler()
			.apply(new McpSyncServerExchange(this.exchange), request));
	}

	private Path mcpStatelessSync() {
		return mcp((request) -> this.mcp
			.decorate(McpToolUtils.toStatelessSyncToolSpecification(callback(request.name()), null))
			.callHandler()
			.apply(McpTransportContext.EMPTY, request));
	}

	private Path mcpAsync() {
		return mcp((request) -> this.mcp.decorate(McpToolUtils.toAsyncToolSpecification(callback(request.name())))
			.callHandler()
			.apply(this.exchange, request)
			.block(Duration.ofSeconds(30)));
	}

	private Path mcpStatelessAsync() {
		return mcp((request) -> this.mcp
			.decorate(McpToolUtils.toStatelessAsyncToolSpecification(callback(request.name()), null))
			.callHandler()
			.apply(McpTransportContext.EMPTY, request)
			.block(Duration.ofSeconds(30)));
	}

	private static CallToolResult refunded(AtomicInteger runs, CallToolRequest request) {
		return CallToolResult.builder()
			.content(List.of(McpSchema.TextContent
				.builder("refund " + runs.incrementAndGet() + " of " + request.arguments().get("order"))
				.build()))
			.build();
	}

}
