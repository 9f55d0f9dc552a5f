package io.idempotency.ai;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.Redaction;
import io.idempotency.test.InMemoryLedger;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call whose claim the ledger's database cannot record, on decorated MCP tools of synchronous and asynchronous
 * servers: an error result of kind {@code refused_ledger_unavailable}, in the text and in {@code _meta}, and the
 * tool did not run.
 */
class McpLedgerUnavailableTest {

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

	/** A ledger whose database is down: every claim fails. */
	static final class DownLedger implements CallLedger {

		private final InMemoryLedger rows = new InMemoryLedger();

		@Override
		public Claim claim(ClaimRequest request) {
			throw new DataAccessResourceFailureException("Connection refused");
		}

		@Override
		public boolean recordSucceeded(Claim.Won claim, String resultJson) {
			return this.rows.recordSucceeded(claim, resultJson);
		}

		@Override
		public boolean recordSucceededWithoutResult(Claim.Won claim, String reason) {
			return this.rows.recordSucceededWithoutResult(claim, reason);
		}

		@Override
		public boolean recordFailed(Claim.Won claim, String error) {
			return this.rows.recordFailed(claim, error);
		}

		@Override
		public boolean recordUnknown(Claim.Won claim, String error) {
			return this.rows.recordUnknown(claim, error);
		}

		@Override
		public void recordReplay(IdempotencyKey key) {
			this.rows.recordReplay(key);
		}

		@Override
		public Redaction redaction() {
			return this.rows.redaction();
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
		this.context.registerBean(CallLedger.class, DownLedger::new);
		this.context.registerBean(NoteTools.class, NoteTools::new);
		this.context.register(Enabled.class);
		this.context.refresh();
		this.notes = this.context.getBean(NoteTools.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	/** As Spring AI's MCP server answers a tool callback's exception: an error result with its message. */
	private CallToolResult noted(CallToolRequest request) {
		try {
			String text = this.notes.recordNote((String) request.arguments().get("text"));
			return CallToolResult.builder().content(List.of(McpSchema.TextContent.builder(text).build())).build();
		}
		catch (RuntimeException ex) {
			return CallToolResult.builder()
				.content(List.of(McpSchema.TextContent.builder(ex.getMessage()).build()))
				.isError(true)
				.build();
		}
	}

	private static CallToolRequest request(String runId) {
		return new CallToolRequest("record_note", Map.of("text", "call back"),
				Map.of(IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, runId));
	}

	@Test
	void onASynchronousServerTheClientReadsThatNothingWasDone() {
		McpServerFeatures.SyncToolSpecification decorated = this.decorator.decorate(
				McpServerFeatures.SyncToolSpecification.builder()
					.tool(this.tool)
					.callHandler((exchange, request) -> noted(request))
					.build());

		assertRefused(decorated.callHandler().apply(null, request("run-1")));
	}

	@Test
	void onAnAsynchronousServerTheClientReadsThatNothingWasDone() {
		McpServerFeatures.AsyncToolSpecification decorated = this.decorator.decorate(
				McpServerFeatures.AsyncToolSpecification.builder()
					.tool(this.tool)
					.callHandler((exchange, request) -> Mono.fromCallable(() -> noted(request)))
					.build());

		assertRefused(decorated.callHandler().apply(null, request("run-2")).block());
	}

	private void assertRefused(CallToolResult result) {
		assertThat(result.isError()).isTrue();
		String text = ((McpSchema.TextContent) result.content().get(0)).text();
		assertThat(JSON.readTree(text).get("kind").asString()).isEqualTo("refused_ledger_unavailable");
		assertThat(result.meta()).containsEntry(IdempotentMcpTools.KIND_META_KEY, "refused_ledger_unavailable")
			.containsEntry(IdempotentMcpTools.REPLAYED_META_KEY, false)
			.containsKey(IdempotentMcpTools.MESSAGE_META_KEY);
		assertThat(text + result.meta()).doesNotContain("Exception").doesNotContain("io.idempotency.");
		assertThat(this.notes.recorded()).as("the tool did not run").isZero();
	}

}
