package io.idempotency.langchain4j;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.AiServices;
import io.idempotency.Approval;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.langchain4j.LangChain4jToolLoopTest.Assistant;
import io.idempotency.langchain4j.LangChain4jToolLoopTest.ScriptedModel;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.reconcile.Approvals;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tool that needs a person's approval, in LangChain4j's own tool loop (an AI service), on a ledger on H2: the
 * model reads {@code awaiting_approval} and nothing runs, on the first call and every repeat; once approved, the
 * same call in the same run runs once and is then replayed; once rejected, a repeat reads
 * {@code refused_not_approved} with the person's reason.
 */
class LangChain4jApprovalTest {

	private static final JsonMapper JSON = new JsonMapper();

	private static final String TABLE = "tool_audit_langchain4j_approvals";

	private static final InvocationParameters RUN = InvocationParameters.from(Map.of("runId", "approval-run",
			"userId", "ada"));

	public static class RefundTools {

		/** Static: the bean is a class-based proxy, whose own fields are not its target's. */
		static final AtomicInteger refunds = new AtomicInteger();

		@Tool(name = "refund", value = "Refund an order")
		@IdempotentTool(reconcile = "findRefund", requiresApproval = true)
		public String refund(String order) {
			return "refund " + refunds.incrementAndGet() + " of " + order;
		}

		@Tool(name = "hold_refund", value = "Hold a refund of an order")
		@IdempotentTool(reconcile = "findRefund", requiresApproval = true)
		public ToolResult<String> holdRefund(String order) {
			return ToolResult.of("refund " + refunds.incrementAndGet() + " of " + order);
		}

		@Tool(name = "discount", value = "Discount an order")
		@IdempotentTool(reconcile = "findRefund", approval = "discountApproval")
		public String discount(String order, int percent) {
			return "discount " + refunds.incrementAndGet() + " of " + percent + "%";
		}

		boolean discountApproval(int percent) {
			return percent > 10;
		}

		Reconciliation<String> findRefund(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Application {

		@Bean
		JdbcLedger ledger() {
			DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);
			LedgerSchema.drop(dataSource, TABLE);
			LedgerSchema.create(dataSource, TABLE);
			return new JdbcLedger(dataSource, TABLE, Redaction.defaults());
		}

		@Bean
		RefundTools refundTools() {
			return new RefundTools();
		}

	}

	private AnnotationConfigApplicationContext context;

	private Approvals approvals;

	private final ScriptedModel model = new ScriptedModel();

	private Assistant assistant;

	@BeforeEach
	void start() {
		RefundTools.refunds.set(0);
		this.context = new AnnotationConfigApplicationContext(Application.class);
		this.approvals = new Approvals(this.context.getBean(JdbcLedger.class).approvals(), Duration.ofHours(1),
				(event) -> {
				});
		this.assistant = AiServices.builder(Assistant.class)
			.chatModel(this.model)
			.tools(IdempotentLangChain4jTools.from(this.context.getBean(RefundTools.class)))
			.build();
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	/** One invocation of the AI service, in the run, whose model calls the tool once: what it read. */
	private String call(String tool, String arguments) {
		this.model.callsTool(tool, arguments).answers("Done.");
		assertThat(this.assistant.chat("Refund the order", RUN)).isEqualTo("Done.");
		List<String> read = this.model.toolResultsRead();
		return read.get(read.size() - 1);
	}

	@Test
	void aPlainToolWaitsRunsOnceApprovedAndIsRefusedOnceRejected() {
		approvalCycle("refund");
	}

	@Test
	void aToolThatReturnsAToolResultWaitsRunsOnceApprovedAndIsRefusedOnceRejected() {
		approvalCycle("hold_refund");
	}

	@Test
	void aToolWhoseApprovalMethodAsksItOfSomeCallsOnly() {
		assertThat(call("discount", "{\"order\":\"O-1\",\"percent\":5}")).isEqualTo("discount 1 of 5%");
		assertThat(kind(call("discount", "{\"order\":\"O-1\",\"percent\":25}"))).isEqualTo("awaiting_approval");
		assertThat(RefundTools.refunds).hasValue(1);

		this.approvals.approve(waiting("discount"), "ops", "ok");

		assertThat(call("discount", "{\"order\":\"O-1\",\"percent\":25}")).isEqualTo("discount 2 of 25%");
		assertThat(RefundTools.refunds).hasValue(2);
	}

	private void approvalCycle(String tool) {
		String arguments = "{\"order\":\"O-1\"}";
		for (String read : List.of(call(tool, arguments), call(tool, arguments))) {
			JsonNode answer = JSON.readTree(read);
			assertThat(answer.get("kind").asString()).isEqualTo("awaiting_approval");
			assertThat(answer.get("replayed").asBoolean()).isFalse();
			assertThat(answer.get("message").asString()).contains("a person must approve this action")
				.contains("Do not call it again");
		}
		assertThat(RefundTools.refunds).as("nothing runs while the call waits").hasValue(0);

		this.approvals.approve(waiting(tool), "ops", "ok");
		String executed = call(tool, arguments);
		String replayed = call(tool, arguments);

		assertThat(executed).contains("refund 1 of O-1");
		assertThat(kind(executed)).isIn(null, "executed");
		assertThat(kind(replayed)).isEqualTo("replayed");
		assertThat(RefundTools.refunds).hasValue(1);

		String rejected = "{\"order\":\"O-2\"}";
		assertThat(kind(call(tool, rejected))).isEqualTo("awaiting_approval");
		this.approvals.reject(waiting(tool), "ops", "refunded by cheque already");
		JsonNode refused = JSON.readTree(call(tool, rejected));

		assertThat(refused.get("kind").asString()).isEqualTo("refused_not_approved");
		assertThat(refused.get("replayed").asBoolean()).isFalse();
		assertThat(refused.get("message").asString()).contains("refunded by cheque already");
		assertThat(RefundTools.refunds).as("a rejected call never runs").hasValue(1);
	}

	private static String kind(String read) {
		if (!read.startsWith("{")) {
			return null;
		}
		JsonNode json = JSON.readTree(read);
		return json.has("kind") ? json.get("kind").asString() : null;
	}

	private IdempotencyKey waiting(String tool) {
		return this.approvals.awaiting(tool, 0, 10).get(0).entry().key();
	}

}
