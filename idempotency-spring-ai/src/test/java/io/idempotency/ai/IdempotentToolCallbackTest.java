package io.idempotency.ai;

import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.Answer;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.test.InMemoryLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the model reads for each answer, through Spring AI's own tool callbacks of real beans and the real
 * advice, on the in-memory ledger: no database, so it runs in seconds. The starter's tests run the same
 * through Spring AI's tool loop and real MCP clients, on every database.
 */
class IdempotentToolCallbackTest {

	private static final JsonMapper json = new JsonMapper();

	private final InMemoryLedger ledger = new InMemoryLedger();

	private AnnotationConfigApplicationContext context;

	private Desk desk;

	private Map<String, ToolCallback> callbacks;

	public record Ticket(String reference, String accountName) {
	}

	public static class Desk {

		private final AtomicInteger opened = new AtomicInteger();

		/** How often a tool body ran (a method: a class-based proxy has no state of its own). */
		public int opened() {
			return this.opened.get();
		}

		@Tool(name = "open_ticket", description = "Open a support ticket")
		@IdempotentTool(reconcile = "findTicket")
		public Ticket openTicket(String accountName, ToolContext toolContext) {
			this.opened.incrementAndGet();
			return new Ticket(IdempotentInvocation.current().key().externalReference("t"), accountName);
		}

		@Tool(name = "open_ticket_envelope", description = "Open a support ticket, told as a ToolResult")
		@IdempotentTool(reconcile = "findTicket")
		public ToolResult<Ticket> openTicketEnvelope(String accountName, ToolContext toolContext) {
			return ToolResult.of(openTicket(accountName, toolContext));
		}

		@Tool(name = "escalate", description = "Escalate a ticket")
		@IdempotentTool(reconcile = "findTicket")
		public Ticket escalate(String accountName, ToolContext toolContext) throws SocketTimeoutException {
			this.opened.incrementAndGet();
			throw new SocketTimeoutException("Read timed out");
		}

		@Tool(name = "close_ticket", description = "Close a ticket")
		@IdempotentTool(reconcile = "findTicket")
		public Ticket closeTicket(String accountName, ToolContext toolContext) {
			this.opened.incrementAndGet();
			throw new IllegalArgumentException("no open ticket for " + accountName);
		}

		Reconciliation<Ticket> findTicket(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools(proxyTargetClass = true)
	static class Tools {

		@Bean
		Desk desk() {
			return new Desk();
		}

	}

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.register(Tools.class);
		this.context.refresh();
		this.desk = this.context.getBean(Desk.class);
		this.callbacks = new java.util.HashMap<>();
		Arrays.stream(IdempotentToolCallbacks.from(this.desk))
			.forEach((callback) -> this.callbacks.put(callback.getToolDefinition().name(), callback));
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void aRepeatIsTheStoredResultWithANoticeThatNothingWasDoneAgain() {
		JsonNode first = call("open_ticket", "r1");
		JsonNode repeat = call("open_ticket", "r1");

		assertThat(first.get("accountName").asString()).isEqualTo("Acme");
		assertThat(repeat.get("replayed").asBoolean()).isTrue();
		assertThat(repeat.get("kind").asString()).isEqualTo(Answer.REPLAYED.kind());
		assertThat(repeat.get("message").asString()).isEqualTo(Answer.REPLAYED.message());
		assertThat(repeat.get("result")).isEqualTo(first);
		assertThat(this.desk.opened()).isEqualTo(1);
	}

	@Test
	void aToolResultToolTellsItsOwnRepeatWithoutASecondNotice() {
		call("open_ticket_envelope", "r1");
		JsonNode repeat = call("open_ticket_envelope", "r1");

		assertThat(repeat.get("replayed").asBoolean()).isTrue();
		assertThat(repeat.get("kind").asString()).isEqualTo("replayed");
		assertThat(repeat.get("data").get("accountName").asString()).isEqualTo("Acme");
		assertThat(repeat.has("result")).as("not wrapped in a notice").isFalse();
		assertThat(this.desk.opened()).isEqualTo(1);
	}

	@Test
	void aRepeatOfAnUnknownOutcomeIsToldItIsInProgressNotAFailure() {
		String first = callText("escalate", "r1");
		JsonNode repeat = call("escalate", "r1");

		assertThat(first).contains("Read timed out");
		assertThat(repeat.get("kind").asString()).isEqualTo(Answer.IN_PROGRESS.kind());
		assertThat(repeat.get("replayed").asBoolean()).isTrue();
		assertThat(repeat.get("message").asString()).contains("Do not retry it");
		assertThat(this.desk.opened()).isEqualTo(1);
	}

	@Test
	void aRepeatOfAFailureIsToldSoWithItsError() {
		callText("close_ticket", "r1");
		JsonNode repeat = call("close_ticket", "r1");

		assertThat(repeat.get("kind").asString()).isEqualTo(Answer.PREVIOUS_ATTEMPT_FAILED.kind());
		assertThat(repeat.get("message").asString()).contains("no open ticket for Acme").contains("not attempted again");
		assertThat(this.desk.opened()).isEqualTo(1);
	}

	@Test
	void aCallWithoutARunIsRefusedInWordsTheModelReads() {
		JsonNode refused = json.readTree(this.callbacks.get("open_ticket").call("{\"accountName\":\"Acme\"}",
				new ToolContext(Map.of("userId", "rep-1"))));

		assertThat(refused.get("kind").asString()).isEqualTo(Answer.REFUSED_WITHOUT_RUN.kind());
		assertThat(refused.get("replayed").asBoolean()).isFalse();
		assertThat(this.desk.opened()).isEqualTo(0);
		assertThat(this.ledger.entries()).isEmpty();
	}

	@Test
	void argumentsThatCannotMakeAKeyAreRefusedInWordsTheModelReads() {
		JsonNode refused = json.readTree(this.callbacks.get("open_ticket").call("{\"accountName\":\"Ac\\u0000me\"}",
				new ToolContext(Map.of("runId", "r1", "userId", "rep-1"))));

		assertThat(refused.get("kind").asString()).isEqualTo(Answer.REFUSED_INVALID_ARGUMENTS.kind());
		assertThat(refused.get("message").asString()).contains("accountName");
		assertThat(this.desk.opened()).isEqualTo(0);
		assertThat(this.ledger.entries()).isEmpty();
	}

	private JsonNode call(String tool, String runId) {
		return json.readTree(callText(tool, runId));
	}

	private String callText(String tool, String runId) {
		ToolContext run = new ToolContext(Map.of("runId", runId, "userId", "rep-1"));
		try {
			return this.callbacks.get(tool).call("{\"accountName\":\"Acme\"}", run);
		}
		catch (RuntimeException ex) {
			// Spring AI's own answer to a tool's failure: its message, for the model.
			return String.valueOf(ex.getMessage());
		}
	}

}
