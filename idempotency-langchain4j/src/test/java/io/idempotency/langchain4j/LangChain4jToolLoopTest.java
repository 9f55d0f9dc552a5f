package io.idempotency.langchain4j;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderResult;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
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
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LangChain4j's own tool loop (an AI service built with {@code AiServices}) driven by a scripted chat model,
 * over the {@code @Tool} methods of a Spring bean whose {@code @IdempotentTool} advice claims each call in a
 * ledger on a real database.
 */
class LangChain4jToolLoopTest {

	private static final JsonMapper JSON = new JsonMapper();

	private static final String ISSUED_TOKEN = "planted-issued-token-0201";

	interface Assistant {

		String chat(String message);

		String chat(@UserMessage String message, InvocationParameters parameters);

	}

	public static class TicketTools {

		private final JdbcTemplate jdbc;

		public TicketTools(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
			this.jdbc.execute("CREATE TABLE tickets (id BIGINT AUTO_INCREMENT PRIMARY KEY, account VARCHAR(50),"
					+ " issue VARCHAR(200))");
		}

		@Tool(name = "open_ticket", value = "Open a support ticket")
		@IdempotentTool(reconcile = "findTicket")
		public String openTicket(String account, String issue) {
			this.jdbc.update("INSERT INTO tickets (account, issue) VALUES (?, ?)", account, issue);
			return "TCK-" + this.jdbc.queryForObject("SELECT MAX(id) FROM tickets", Long.class);
		}

		Reconciliation<String> findTicket(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@Tool(name = "refund", value = "Refund an order")
		@IdempotentTool(reconcile = "findRefund")
		public String refund(String order) {
			throw new IllegalArgumentException("order " + order + " was never paid");
		}

		Reconciliation<String> findRefund(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@Tool(name = "log_issue", value = "Log an issue against an account")
		@IdempotentTool(reconcile = "findTicket", keyArguments = "account")
		public String logIssue(String account, String note) {
			return openTicket(account, note);
		}

		private final java.util.concurrent.atomic.AtomicInteger issued = new java.util.concurrent.atomic.AtomicInteger();

		/** A result that is JSON text holding a secret: never stored. */
		@Tool(name = "issue_token", value = "Issue an access token for an account")
		@IdempotentTool(reconcile = "findTicket")
		public String issueToken(String account) {
			this.issued.incrementAndGet();
			return JSON.writeValueAsString(Map.of("account", account, "accessToken", ISSUED_TOKEN));
		}

		/** How often issue_token ran (a method: a class-based proxy has no state of its own). */
		public int issued() {
			return this.issued.get();
		}

		int tickets() {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM tickets", Integer.class);
		}

		/** A read, not idempotent, and private: a class-based proxy cannot override it. */
		@Tool(name = "count_tickets", value = "How many tickets are open")
		private int countTickets() {
			return tickets();
		}

	}

	/** An idempotent tool that refunds through the idempotent refund: a nested call. */
	public static class OrderTools {

		private final TicketTools tickets;

		public OrderTools(TicketTools tickets) {
			this.tickets = tickets;
		}

		@Tool(name = "cancel_order", value = "Cancel an order and refund it")
		@IdempotentTool(reconcile = "findCancellation")
		public String cancelOrder(String order) {
			return "cancelled, " + this.tickets.refund(order);
		}

		Reconciliation<String> findCancellation(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Application {

		@Bean
		DataSource dataSource() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		JdbcLedger ledger(DataSource dataSource) {
			LedgerSchema.create(dataSource, "tool_audit");
			return new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		}

		@Bean
		TicketTools ticketTools(DataSource dataSource) {
			return new TicketTools(dataSource);
		}

		@Bean
		OrderTools orderTools(TicketTools ticketTools) {
			return new OrderTools(ticketTools);
		}

	}

	/** A chat model that answers from a script and keeps every request it was sent. */
	static class ScriptedModel implements ChatModel {

		final Deque<AiMessage> script = new ArrayDeque<>();

		final List<ChatRequest> requests = new ArrayList<>();

		ScriptedModel callsTool(String tool, String argumentsJson) {
			return callsInOneTurn(tool, argumentsJson);
		}

		ScriptedModel callsInOneTurn(String tool, String... argumentsJsons) {
			List<ToolExecutionRequest> calls = new ArrayList<>();
			for (String arguments : argumentsJsons) {
				calls.add(ToolExecutionRequest.builder()
					.id("call-" + this.script.size() + "-" + calls.size())
					.name(tool)
					.arguments(arguments)
					.build());
			}
			this.script.add(AiMessage.from(calls));
			return this;
		}

		ScriptedModel answers(String text) {
			this.script.add(AiMessage.from(text));
			return this;
		}

		@Override
		public ChatResponse doChat(ChatRequest request) {
			this.requests.add(request);
			return ChatResponse.builder().aiMessage(this.script.removeFirst()).build();
		}

		/** The text of every tool result the model read, in order, once each. */
		List<String> toolResultsRead() {
			List<String> read = new ArrayList<>();
			for (ChatMessage message : this.requests.get(this.requests.size() - 1).messages()) {
				if (message instanceof ToolExecutionResultMessage result) {
					read.add(result.text());
				}
			}
			return read;
		}

	}

	private AnnotationConfigApplicationContext context;

	private TicketTools tools;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext(Application.class);
		this.tools = this.context.getBean(TicketTools.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	private Assistant assistant(ScriptedModel model) {
		return AiServices.builder(Assistant.class)
			.chatModel(model)
			.tools(IdempotentLangChain4jTools.from(this.tools))
			.build();
	}

	@Test
	void aRepeatedCallInOneInvocationHasOneEffectAndTheModelReadsTheNoticeANewInvocationIsANewRun() {
		ScriptedModel model = new ScriptedModel()
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}")
			.callsTool("open_ticket", "{\"issue\":\"seal failure\",\"account\":\"acme\"}")
			.answers("One ticket is open.");
		Assistant assistant = assistant(model);

		assertThat(assistant.chat("Open a ticket for acme: the pump seal failed")).isEqualTo("One ticket is open.");

		assertThat(this.tools.tickets()).isEqualTo(1);
		List<String> read = model.toolResultsRead();
		assertThat(read).hasSize(2);
		assertThat(read.get(0)).isEqualTo("TCK-1");
		JsonNode notice = JSON.readTree(read.get(1));
		assertThat(notice.get("replayed").asBoolean()).isTrue();
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("message").asString()).contains("Nothing was done again");
		assertThat(notice.get("result").asString()).isEqualTo("TCK-1");

		model.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}").answers("Another one.");
		assistant.chat("Open a ticket for acme: the pump seal failed");
		assertThat(this.tools.tickets()).as("a new invocation is a new run").isEqualTo(2);
		assertThat(model.toolResultsRead()).last().isEqualTo("TCK-2");
	}

	@Test
	void aRunNamedInTheInvocationParametersOrBoundAroundTheCallSpansInvocations() {
		ScriptedModel model = new ScriptedModel();
		Assistant assistant = assistant(model);
		for (int i = 0; i < 2; i++) {
			model.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"valve leak\"}").answers("Done.");
			assistant.chat("Open a ticket", InvocationParameters.from(java.util.Map.of("runId", "request-7", "userId", "ada")));
		}
		assertThat(this.tools.tickets()).isEqualTo(1);
		assertThat(model.toolResultsRead()).last().asString().contains("\"kind\":\"replayed\"");

		for (int i = 0; i < 2; i++) {
			model.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"noisy bearing\"}").answers("Done.");
			RunContext.run(new Run("request-8", "ada"), () -> assistant.chat("Open a ticket"));
		}
		assertThat(this.tools.tickets()).isEqualTo(2);
		assertThat(new JdbcTemplate(this.context.getBean(DataSource.class))
			.queryForList("SELECT run_id FROM tool_audit ORDER BY run_id", String.class))
			.containsExactly("request-7", "request-8");
	}

	@Test
	void anExecutorWrittenByHandAndDecoratedAnswersARepeatAsTheBeansToolsDo() {
		ToolSpecification specification = ToolSpecification.builder()
			.name("open_ticket")
			.description("Open a support ticket")
			.parameters(JsonObjectSchema.builder().addStringProperty("account").addStringProperty("issue").build())
			.build();
		ToolExecutor byHand = (request, memoryId) -> {
			JsonNode arguments = JSON.readTree(request.arguments());
			return this.tools.openTicket(arguments.get("account").asString(), arguments.get("issue").asString());
		};
		ScriptedModel model = new ScriptedModel()
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"worn gasket\"}")
			.callsTool("open_ticket", "{\"issue\":\"worn gasket\",\"account\":\"acme\"}")
			.answers("One ticket.");
		Assistant assistant = AiServices.builder(Assistant.class)
			.chatModel(model)
			.tools(Map.of(specification, IdempotentLangChain4jTools.decorate(byHand, "open_ticket")))
			.build();

		assistant.chat("Open a ticket for acme: worn gasket");

		assertThat(this.tools.tickets()).isEqualTo(1);
		List<String> read = model.toolResultsRead();
		assertThat(read.get(0)).isEqualTo("TCK-1");
		JsonNode notice = JSON.readTree(read.get(1));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("result").asString()).isEqualTo("TCK-1");
	}

	@Test
	void aToolProviderOfTheBeansToolsKeepsAnotherProvidersTools() {
		ToolProvider others = (request) -> ToolProviderResult.builder()
			.add(ToolSpecification.builder().name("lookup").description("Look a SKU up").build(),
					(call, memoryId) -> "a pump")
			.build();
		ScriptedModel model = new ScriptedModel()
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"loose bolt\"}")
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"loose bolt\"}")
			.callsTool("lookup", "{}")
			.answers("Done.");
		Assistant assistant = AiServices.builder(Assistant.class)
			.chatModel(model)
			.toolProvider(IdempotentLangChain4jTools.toolProvider(others, this.tools))
			.build();

		assistant.chat("Open a ticket, then look PUMP-3 up");

		assertThat(this.tools.tickets()).isEqualTo(1);
		List<String> read = model.toolResultsRead();
		assertThat(read).hasSize(3);
		assertThat(JSON.readTree(read.get(1)).get("kind").asString()).isEqualTo("replayed");
		assertThat(read.get(2)).isEqualTo("a pump");
	}

	@Test
	void aRepeatThatRephrasesADetailOutsideTheKeyReadsTheResultAndWhatWasNotApplied() {
		ScriptedModel model = new ScriptedModel().callsTool("log_issue", "{\"account\":\"acme\",\"note\":\"pump is noisy\"}")
			.callsTool("log_issue", "{\"account\":\"acme\",\"note\":\"The pump makes a noise\"}")
			.answers("Logged once.");

		assistant(model).chat("Log the pump noise for acme");

		assertThat(this.tools.tickets()).isEqualTo(1);
		JsonNode notice = JSON.readTree(model.toolResultsRead().get(1));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed_different_details");
		assertThat(notice.get("differentDetails").get(0).asString()).isEqualTo("note");
		assertThat(notice.get("result").asString()).isEqualTo("TCK-1");
	}

	@Test
	void aToolMethodTheProxyCannotOverrideRunsOnTheBeanItself() {
		ScriptedModel model = new ScriptedModel().callsTool("count_tickets", "{}").answers("None yet.");

		assistant(model).chat("How many tickets are open?");

		assertThat(model.toolResultsRead()).containsExactly("0");
	}

	@Test
	void aRepeatOfAFailedCallIsToldThePreviousAttemptFailedWithoutRunningAgain() {
		ScriptedModel model = new ScriptedModel().callsInOneTurn("refund", "{\"order\":\"A-1\"}")
			.callsInOneTurn("refund", "{\"order\":\"A-1\"}")
			.answers("The refund failed.");

		assistant(model).chat("Refund order A-1");

		List<String> read = model.toolResultsRead();
		assertThat(read.get(0)).contains("never paid");
		JsonNode answer = JSON.readTree(read.get(1));
		assertThat(answer.get("kind").asString()).isEqualTo("previous_attempt_failed");
		assertThat(answer.get("replayed").asBoolean()).isTrue();
		assertThat(answer.get("message").asString()).contains("never paid");
		assertThat(new JdbcTemplate(this.context.getBean(DataSource.class))
			.queryForObject("SELECT status FROM tool_audit WHERE tool = 'refund'", String.class)).isEqualTo("failed");
	}

	@Test
	void aToolCalledForTheFirstTimeThatFailsOnARefusedCallInsideItIsNotToldItWasARepeat() {
		ScriptedModel model = new ScriptedModel().callsInOneTurn("refund", "{\"order\":\"A-2\"}")
			.callsInOneTurn("cancel_order", "{\"order\":\"A-2\"}")
			.answers("The order could not be cancelled.");
		Assistant assistant = AiServices.builder(Assistant.class)
			.chatModel(model)
			.tools(IdempotentLangChain4jTools.from(this.tools, this.context.getBean(OrderTools.class)))
			.build();

		assistant.chat("Cancel order A-2 and refund it");

		assertThat(model.toolResultsRead().get(1))
			.as("cancel_order ran for the first time: its failure is its own, not a repeat's answer")
			.doesNotContain("\"kind\"")
			.doesNotContain("\"replayed\"");
	}

	@Test
	void aResultThatIsJsonTextHoldingASecretIsNotStoredAndTheRepeatIsToldItWasDoneWithoutIt() {
		ScriptedModel model = new ScriptedModel().callsTool("issue_token", "{\"account\":\"acme\"}")
			.callsTool("issue_token", "{\"account\":\"acme\"}")
			.answers("Issued once.");

		assistant(model).chat("Issue a token for acme");

		assertThat(this.tools.issued()).isEqualTo(1);
		List<String> read = model.toolResultsRead();
		assertThat(read.get(0)).as("the model reads the result once").contains(ISSUED_TOKEN);
		JsonNode answer = JSON.readTree(read.get(1));
		assertThat(answer.get("kind").asString()).isEqualTo("replayed_without_result");
		assertThat(read.get(1)).doesNotContain(ISSUED_TOKEN);
		List<Map<String, Object>> rows = new JdbcTemplate(this.context.getBean(DataSource.class))
			.queryForList("SELECT * FROM tool_audit WHERE tool = 'issue_token'");
		assertThat(rows).singleElement().satisfies((row) -> {
			assertThat(row.get("result")).isNull();
			assertThat(row.toString()).doesNotContain(ISSUED_TOKEN);
		});
	}

}
