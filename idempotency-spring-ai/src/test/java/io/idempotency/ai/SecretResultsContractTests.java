package io.idempotency.ai;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.DifferentDetails;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.Reconciliation;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tools that are not annotated methods, a function callback and an MCP tool written by hand, whose results
 * hold secrets inside their text (JSON text in a string, a text content, structured content) or quote an
 * escaped argument, and whose arguments carry a secret as {@code null}: on a ledger on each database, every
 * column of every row searched for the secrets.
 */
abstract class SecretResultsContractTests {

	static final String LEDGER_TABLE = "tool_audit_secret_results_test";

	static final String CALLBACK_TOKEN = "planted-callback-token-0101";

	static final String QUOTED_KEY = "sk-\"quoted\"-\\planted-0102";

	static final String CONTENT_KEY = "planted-content-key-0103";

	static final String STRUCTURED_TOKEN = "planted-structured-token-0104";

	static final String STRUCTURED_TEXT_TOKEN = "planted-structured-text-token-0105";

	private static final JsonMapper JSON = new JsonMapper();

	private static final ToolContext RUN = new ToolContext(Map.of("runId", "secret-run", "userId", "rep-1"));

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	public record Account(String account) {
	}

	public record Login(String account, String apiKey) {
	}

	private final AtomicInteger runs = new AtomicInteger();

	private DataSource dataSource;

	private AnnotationConfigApplicationContext context;

	private IdempotentCalls calls;

	abstract DataSource dataSource();

	@BeforeEach
	void start() {
		DataSource dataSource = dataSource();
		this.dataSource = dataSource;
		LedgerSchema.drop(dataSource, LEDGER_TABLE);
		LedgerSchema.create(dataSource, LEDGER_TABLE);
		this.context = new AnnotationConfigApplicationContext();
		// Shared for the whole test run: the context must not close it.
		this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
		this.context.registerBean(JdbcLedger.class, () -> new JdbcLedger(dataSource, LEDGER_TABLE, Redaction.defaults()));
		this.context.register(Enabled.class);
		this.context.refresh();
		this.calls = this.context.getBean(IdempotentCalls.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void aFunctionCallbacksTextHoldingASecretOrQuotingAnEscapedKeyIsNotStoredAndARepeatIsToldItWasDone() {
		ToolCallback issueToken = callback("issue_token", Account.class,
				(Account request) -> JSON.writeValueAsString(Map.of("account", request.account(), "accessToken",
						CALLBACK_TOKEN)));
		ToolCallback connect = callback("connect", Login.class,
				(Login request) -> "connected " + request.account() + " with " + request.apiKey());
		String login = JSON.writeValueAsString(new Login("acme", QUOTED_KEY));

		assertThat(issueToken.call("{\"account\":\"acme\"}", RUN)).as("the model reads the result").contains(CALLBACK_TOKEN);
		assertThat(connect.call(login, RUN)).contains("connected acme");
		String issuedAgain = issueToken.call("{\"account\":\"acme\"}", RUN);
		String connectedAgain = connect.call(login, RUN);

		assertThat(this.runs).hasValue(2);
		assertThat(issuedAgain).contains("replayed_without_result").doesNotContain(CALLBACK_TOKEN);
		assertThat(connectedAgain).contains("replayed_without_result").doesNotContain("quoted");
		List<Map<String, Object>> rows = rows();
		assertThat(rows).hasSize(2).allSatisfy((row) -> {
			assertThat(row.get("status")).isEqualTo("succeeded");
			assertThat(row.get("result")).isNull();
			assertThat(String.valueOf(row.get("error"))).startsWith("The result is not stored:");
		});
		assertNoneInAnyColumn(rows, List.of(CALLBACK_TOKEN, QUOTED_KEY));
	}

	@Test
	void anMcpToolsTextContentOrStructuredContentHoldingASecretIsNotStoredAndARepeatIsToldItWasDone() {
		McpServerFeatures.SyncToolSpecification issueKey = mcpTool("issue_key",
				(request) -> CallToolResult.builder()
					.addTextContent(JSON.writeValueAsString(Map.of("account", "acme", "apiKey", CONTENT_KEY)))
					.build());
		McpServerFeatures.SyncToolSpecification openSession = mcpTool("open_session",
				(request) -> CallToolResult.builder()
					.addTextContent("session opened")
					.structuredContent(Map.of("session", Map.of("accessToken", STRUCTURED_TOKEN)))
					.build());
		McpServerFeatures.SyncToolSpecification openSessionText = mcpTool("open_session_text",
				(request) -> CallToolResult.builder()
					.addTextContent("session opened")
					.structuredContent(JSON.writeValueAsString(Map.of("accessToken", STRUCTURED_TEXT_TOKEN)))
					.build());
		McpServerFeatures.SyncToolSpecification openTicket = mcpTool("open_ticket",
				(request) -> CallToolResult.builder().addTextContent("{\"ticket\":\"T-1\",\"key\":\"PROJ-1\"}").build());

		List<CallToolResult> first = new ArrayList<>();
		List<CallToolResult> again = new ArrayList<>();
		for (McpServerFeatures.SyncToolSpecification tool : List.of(issueKey, openSession, openSessionText, openTicket)) {
			CallToolRequest request = new CallToolRequest(tool.tool().name(), Map.of("account", "acme"));
			first.add(inRun(() -> tool.callHandler().apply(null, request)));
			again.add(inRun(() -> tool.callHandler().apply(null, request)));
		}

		assertThat(this.runs).hasValue(4);
		assertThat(first).noneMatch((result) -> Boolean.TRUE.equals(result.isError()));
		assertThat(again.subList(0, 3)).allSatisfy((result) -> {
			assertThat(result.isError()).isTrue();
			assertThat(text(result)).doesNotContain("planted");
		});
		assertThat(text(again.get(3))).as("a result without a secret is stored and replayed")
			.isEqualTo("{\"ticket\":\"T-1\",\"key\":\"PROJ-1\"}");
		List<Map<String, Object>> rows = rows();
		assertThat(rows).hasSize(4).allSatisfy((row) -> assertThat(row.get("status")).isEqualTo("succeeded"));
		assertThat(rows).filteredOn((row) -> !"open_ticket".equals(row.get("tool"))).allSatisfy((row) -> {
			assertThat(row.get("result")).as("the result of %s", row.get("tool")).isNull();
			assertThat(String.valueOf(row.get("error"))).startsWith("The result is not stored:");
		});
		assertNoneInAnyColumn(rows, List.of(CONTENT_KEY, STRUCTURED_TOKEN, STRUCTURED_TEXT_TOKEN));
	}

	@Test
	void anMcpToolsSecretArgumentSentAsNullIsStoredAsNullAndIsTheSameDetailAsOneLeftOut() {
		IdempotentFunction<CallToolResult> function = IdempotentFunction.builder("link_account", CallToolResult.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.keyArguments("account")
			.onDifferentDetails(DifferentDetails.REFUSE)
			.build();
		McpServerFeatures.SyncToolSpecification linkAccount = IdempotentMcpTools.idempotent(
				McpServerFeatures.SyncToolSpecification.builder()
					.tool(McpSchema.Tool.builder().name("link_account").inputSchema(Map.of("type", "object")).build())
					.callHandler((exchange, request) -> {
						this.runs.incrementAndGet();
						return CallToolResult.builder().addTextContent("linked").build();
					})
					.build(),
				function, this.calls);
		Map<String, Object> withNull = new HashMap<>();
		withNull.put("account", "acme");
		withNull.put("apiKey", null);

		CallToolResult linked = inRun(() -> linkAccount.callHandler().apply(null, new CallToolRequest("link_account", withNull)));
		CallToolResult again = inRun(() -> linkAccount.callHandler()
			.apply(null, new CallToolRequest("link_account", Map.of("account", "acme"))));

		assertThat(this.runs).hasValue(1);
		assertThat(text(linked)).isEqualTo("linked");
		assertThat(again.isError()).as("a key left out is the key sent as null: the same intent, not refused").isFalse();
		assertThat(text(again)).isEqualTo("linked");
		JsonNode stored = JSON.readTree(String.valueOf(rows().get(0).get("arguments")));
		assertThat(stored.get("apiKey")).isNotNull();
		assertThat(stored.get("apiKey").isNull()).as("stored: %s", stored).isTrue();
	}

	private <T> ToolCallback callback(String name, Class<T> input, Function<T, String> body) {
		ToolCallback callback = FunctionToolCallback.builder(name, (T request) -> {
			this.runs.incrementAndGet();
			return body.apply(request);
		}).description(name).inputType(input).build();
		return IdempotentToolCallbacks.idempotent(callback, IdempotentFunction.builder(name, String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build(), this.calls);
	}

	private McpServerFeatures.SyncToolSpecification mcpTool(String name,
			Function<CallToolRequest, CallToolResult> handler) {
		McpServerFeatures.SyncToolSpecification handWritten = McpServerFeatures.SyncToolSpecification.builder()
			.tool(McpSchema.Tool.builder().name(name).inputSchema(Map.of("type", "object")).build())
			.callHandler((exchange, request) -> {
				this.runs.incrementAndGet();
				return handler.apply(request);
			})
			.build();
		return IdempotentMcpTools.idempotent(handWritten, IdempotentFunction.builder(name, CallToolResult.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build(), this.calls);
	}

	private static <T> T inRun(Supplier<T> work) {
		return RunContext.supply(new Run("secret-run", "rep-1"), work);
	}

	private static String text(CallToolResult result) {
		return ((McpSchema.TextContent) result.content().get(0)).text();
	}

	private List<Map<String, Object>> rows() {
		return new JdbcTemplate(this.dataSource).queryForList("SELECT * FROM " + LEDGER_TABLE);
	}

	/** No secret in any column: not as it is, nor as JSON holds it (escaped), nor as JSON text inside JSON does. */
	private static void assertNoneInAnyColumn(List<Map<String, Object>> rows, List<String> secrets) {
		List<String> forms = new ArrayList<>();
		for (String secret : secrets) {
			String escaped = escaped(secret);
			forms.addAll(List.of(secret, escaped, escaped(escaped)));
		}
		for (Map<String, Object> row : rows) {
			row.forEach((column, value) -> forms.forEach((form) -> assertThat(String.valueOf(value))
				.as("column %s of row %s", column, row.get("id"))
				.doesNotContain(form)));
		}
	}

	private static String escaped(String text) {
		String json = JSON.writeValueAsString(text);
		return json.substring(1, json.length() - 1);
	}

}
