package io.idempotency.autoconfigure.ai;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallScope;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.autoconfigure.IdempotencyContextPropagationAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyApprovalsAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.autoconfigure.web.RequestHeaderRunSource;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.run.RunSource;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import io.idempotency.ai.IdempotentToolCallback;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring AI's real tool loop (ChatClient, ToolCallingAdvisor, ToolCallingManager, method tool callbacks)
 * driven by a scripted model, with no network.
 */
public class SpringAiToolLoopTest {

	private static final tools.jackson.databind.json.JsonMapper JSON = new tools.jackson.databind.json.JsonMapper();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
				IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencySpringAiAutoConfiguration.class))
		.withUserConfiguration(Tools.class);

	public record Draft(long id, String sku, int quantity) {
	}

	public static class DraftTools {

		private final JdbcTemplate jdbc;

		public DraftTools(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
			jdbc.execute("CREATE TABLE IF NOT EXISTS drafts (id BIGINT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(50), quantity INT)");
		}

		@Tool(name = "draft_quote", description = "Draft a quote")
		@IdempotentTool(reconcile = "findDraft")
		public Draft draftQuote(String sku, int quantity, ToolContext toolContext) {
			this.jdbc.update("INSERT INTO drafts (sku, quantity) VALUES (?, ?)", sku, quantity);
			long id = this.jdbc.queryForObject("SELECT MAX(id) FROM drafts", Long.class);
			return new Draft(id, sku, quantity);
		}

		Reconciliation<Draft> findDraft(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@Tool(name = "send_quote", description = "Send a quote")
		@IdempotentTool(reconcile = "findSent")
		public String sendQuote(long draftId, ToolContext toolContext) {
			throw new IllegalArgumentException("draft " + draftId + " has no contact address");
		}

		Reconciliation<String> findSent(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@Tool(name = "export_drafts", description = "Export the drafts to a file", returnDirect = true)
		@IdempotentTool(reconcile = "findExport")
		public Draft exportDrafts(String sku, ToolContext toolContext) {
			return draftQuote(sku, 1, toolContext);
		}

		Reconciliation<Draft> findExport(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		public int drafts() {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM drafts", Integer.class);
		}

		@Tool(name = "open_case", description = "Open a support case")
		@IdempotentTool(reconcile = "findCase", keyArguments = { "account", "issue" })
		public String openCase(String account, String issue, String description, ToolContext toolContext) {
			this.jdbc.update("INSERT INTO drafts (sku, quantity) VALUES (?, 0)", "CASE-" + issue);
			return "case for " + account + ": " + issue;
		}

		@Tool(name = "open_strict_case", description = "Open a support case, exactly as described")
		@IdempotentTool(reconcile = "findCase", keyExcludes = "description",
				onDifferentDetails = io.idempotency.DifferentDetails.REFUSE)
		public String openStrictCase(String account, String issue, String description, ToolContext toolContext) {
			this.jdbc.update("INSERT INTO drafts (sku, quantity) VALUES (?, 0)", "STRICT-" + issue);
			return "strict case for " + account + ": " + issue;
		}

		Reconciliation<String> findCase(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** A tool that is not idempotent and drafts quotes through the idempotent one: its result is its own. */
	public static class PlanningTools {

		private final DraftTools drafts;

		public PlanningTools(DraftTools drafts) {
			this.drafts = drafts;
		}

		@Tool(name = "plan_order", description = "Plan an order, drafting its quote")
		public String planOrder(String sku, ToolContext toolContext) {
			return "planned with draft " + this.drafts.draftQuote(sku, 1, toolContext).id();
		}

	}

	/** An idempotent tool that sends its quote through the idempotent send_quote: a nested call. */
	public static class DispatchTools {

		private final DraftTools drafts;

		public DispatchTools(DraftTools drafts) {
			this.drafts = drafts;
		}

		@Tool(name = "dispatch_quote", description = "Send a quote and book its delivery")
		@IdempotentTool(reconcile = "findDispatch")
		public String dispatchQuote(long draftId, ToolContext toolContext) {
			return "dispatched: " + this.drafts.sendQuote(draftId, toolContext);
		}

		Reconciliation<String> findDispatch(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Tools {

		@Bean
		DraftTools draftTools(DataSource dataSource) {
			return new DraftTools(new JdbcTemplate(dataSource));
		}

		@Bean
		DispatchTools dispatchTools(DraftTools draftTools) {
			return new DispatchTools(draftTools);
		}

		@Bean
		ToolCallingManager toolCallingManager() {
			return ToolCallingManager.builder().build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DraftToolsOnly {

		@Bean
		DraftTools draftTools(DataSource dataSource) {
			return new DraftTools(new JdbcTemplate(dataSource));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class DraftToolsAsCallbackBeans {

		@Bean
		ToolCallbackProvider draftToolCallbacks(DraftTools draftTools) {
			return MethodToolCallbackProvider.builder().toolObjects(draftTools).build();
		}

	}

	/** A model that answers from a script and keeps every prompt it was sent. */
	public static class ScriptedModel implements ChatModel {

		final Deque<AssistantMessage> script = new ArrayDeque<>();

		final List<Prompt> prompts = new ArrayList<>();

		public ScriptedModel callsTool(String tool, String argumentsJson) {
			this.script.add(AssistantMessage.builder()
				.content("")
				.toolCalls(List.of(new AssistantMessage.ToolCall("call-" + this.script.size(), "function", tool,
						argumentsJson)))
				.build());
			return this;
		}

		/** One turn in which the model calls a tool several times, as models batch their calls. */
		public ScriptedModel callsInOneTurn(String tool, String... argumentsJsons) {
			List<AssistantMessage.ToolCall> calls = new ArrayList<>();
			for (String arguments : argumentsJsons) {
				calls.add(new AssistantMessage.ToolCall("call-" + this.script.size() + "-" + calls.size(), "function", tool,
						arguments));
			}
			this.script.add(AssistantMessage.builder().content("").toolCalls(calls).build());
			return this;
		}

		public ScriptedModel answers(String text) {
			this.script.add(new AssistantMessage(text));
			return this;
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			this.prompts.add(prompt);
			return new ChatResponse(List.of(new Generation(this.script.removeFirst())));
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.defer(() -> Flux.just(call(prompt)));
		}

		@Override
		public ChatOptions getOptions() {
			return ToolCallingChatOptions.builder().build();
		}

		@Override
		public ChatOptions getDefaultOptions() {
			return ToolCallingChatOptions.builder().build();
		}

		/** The tool responses the model read, in order. */
		public List<ToolResponseMessage.ToolResponse> toolResponsesRead() {
			List<ToolResponseMessage.ToolResponse> read = new ArrayList<>();
			for (Prompt prompt : this.prompts) {
				List<Message> messages = prompt.getInstructions();
				Message last = messages.get(messages.size() - 1);
				if (last instanceof ToolResponseMessage responses) {
					read.addAll(responses.getResponses());
				}
			}
			return read;
		}

	}

	private static String ask(ApplicationContext context, ScriptedModel model, String runId) {
		ChatClient client = ChatClient.builder(model)
			.defaultAdvisors(
					ToolCallingAdvisor.builder().toolCallingManager(context.getBean(ToolCallingManager.class)).build())
			.build();
		return client.prompt()
			.user("Quote 200 of SKU-4411 for Henderson")
			.tools(context.getBean(DraftTools.class))
			.toolContext(Map.of("runId", runId, "userId", "rep-1"))
			.call()
			.content();
	}

	@Test
	void aModelThatCallsAToolTwiceInOneRunIsToldTheSecondCallWasAReplay() {
		this.runner.run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			ScriptedModel monday = new ScriptedModel().callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
				.callsTool("draft_quote", "{\"quantity\":200,\"sku\":\" SKU-4411\"}")
				.answers("I drafted one quote.");

			assertThat(ask(context, monday, "monday-run")).isEqualTo("I drafted one quote.");

			assertThat(tools.drafts()).isEqualTo(1);
			List<ToolResponseMessage.ToolResponse> read = monday.toolResponsesRead();
			assertThat(read).hasSize(2);
			assertThat(read.get(0).responseData()).doesNotContain("replayed");
			assertThat(read.get(1).responseData()).contains("\"replayed\":true")
				.contains("Already done earlier in this run")
				.contains("\"result\":{\"id\":1,\"sku\":\"SKU-4411\",\"quantity\":200}");

			ScriptedModel tuesday = new ScriptedModel().callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
				.answers("I drafted another quote.");
			ask(context, tuesday, "tuesday-run");
			assertThat(tools.drafts()).isEqualTo(2);
			assertThat(tuesday.toolResponsesRead().get(0).responseData()).doesNotContain("replayed");
		});
	}

	@Test
	void aRepeatThatRephrasesADetailOutsideTheKeyIsOneCaseAndTheModelReadsWhatWasNotApplied() {
		this.runner.run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			ScriptedModel model = new ScriptedModel()
				.callsTool("open_case", "{\"account\":\"acme\",\"issue\":\"seal\",\"description\":\"Seal failure on pump 3\"}")
				.callsTool("open_case", "{\"issue\":\"seal\",\"account\":\"acme\",\"description\":\"The seal on pump 3 failed\"}")
				.callsTool("open_strict_case", "{\"account\":\"acme\",\"issue\":\"valve\",\"description\":\"Valve leaks\"}")
				.callsTool("open_strict_case", "{\"account\":\"acme\",\"issue\":\"valve\",\"description\":\"Leaking valve\"}")
				.answers("One case each.");

			ask(context, model, "case-run");

			assertThat(tools.drafts()).as("one case each").isEqualTo(2);
			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read.get(0).responseData()).isEqualTo("\"case for acme: seal\"");
			tools.jackson.databind.JsonNode replayed = JSON.readTree(read.get(1).responseData());
			assertThat(replayed.get("kind").asString()).isEqualTo("replayed_different_details");
			assertThat(replayed.get("differentDetails").get(0).asString()).isEqualTo("description");
			assertThat(replayed.get("message").asString()).contains("were not applied: description");
			assertThat(replayed.get("result").asString()).isEqualTo("case for acme: seal");
			tools.jackson.databind.JsonNode refused = JSON.readTree(read.get(3).responseData());
			assertThat(refused.get("kind").asString()).isEqualTo("refused_different_details");
			assertThat(refused.get("message").asString()).contains("details differ from it: description");
		});
	}

	@Test
	void theChatClientThatSpringAiAutoConfiguresTellsTheModelToo() {
		ScriptedModel model = new ScriptedModel().callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
			.callsTool("draft_quote", "{\"quantity\":200,\"sku\":\"SKU-4411\"}")
			.answers("One quote.");
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
					IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencySpringAiAutoConfiguration.class,
					ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class))
			.withUserConfiguration(DraftToolsOnly.class)
			.withBean(ChatModel.class, () -> model)
			.run((context) -> {
				String answer = context.getBean(ChatClient.Builder.class)
					.build()
					.prompt()
					.user("Quote 200 of SKU-4411")
					.tools(context.getBean(DraftTools.class))
					.toolContext(Map.of("runId", "boot-run", "userId", "rep-1"))
					.call()
					.content();

				assertThat(answer).isEqualTo("One quote.");
				assertThat(context.getBean(DraftTools.class).drafts()).isEqualTo(1);
				assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"replayed\":true");
			});
	}

	@Test
	void aStreamedAnswerFindsTheRunBoundWhereItIsSubscribedWithTheStarterAlone() {
		this.runner.withConfiguration(AutoConfigurations.of(IdempotencyContextPropagationAutoConfiguration.class))
			.run((context) -> {
				DraftTools tools = context.getBean(DraftTools.class);
				ScriptedModel model = new ScriptedModel()
					.callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
					.callsTool("draft_quote", "{\"quantity\":200,\"sku\":\"SKU-4411 \"}")
					.answers("One quote.");
				ChatClient client = ChatClient.builder(model)
					.defaultAdvisors(ToolCallingAdvisor.builder()
						.toolCallingManager(context.getBean(ToolCallingManager.class))
						.build())
					.build();

				// No run in the ToolContext: the run is the one bound where the stream is subscribed.
				List<String> answer = RunContext.supply(new Run("stream-run", "rep-1"), () -> client.prompt()
					.user("Quote 200 of SKU-4411")
					.tools(tools)
					.toolContext(Map.of("channel", "chat"))
					.stream()
					.content()
					.collectList()
					.block(Duration.ofSeconds(30)));

				assertThat(String.join("", answer)).isEqualTo("One quote.");
				assertThat(tools.drafts()).isEqualTo(1);
				List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
				assertThat(read).hasSize(2);
				assertThat(read.get(0).responseData()).doesNotContain("replayed").contains("SKU-4411");
				assertThat(read.get(1).responseData()).contains("\"replayed\":true");

				// A stream returned to a reactive caller, subscribed later: the run goes in Reactor's context.
				ScriptedModel later = new ScriptedModel()
					.callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
					.callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
					.answers("One more quote.");
				Flux<String> returned = ChatClient.builder(later)
					.defaultAdvisors(ToolCallingAdvisor.builder()
						.toolCallingManager(context.getBean(ToolCallingManager.class))
						.build())
					.build()
					.prompt()
					.user("Quote 200 of SKU-4411 again tomorrow")
					.tools(tools)
					.toolContext(Map.of("channel", "chat"))
					.stream()
					.content()
					.contextWrite(Context.of(RunContext.CONTEXT_KEY, new Run("next-run", "rep-1")));

				assertThat(String.join("", returned.collectList().block(Duration.ofSeconds(30))))
					.isEqualTo("One more quote.");
				assertThat(tools.drafts()).isEqualTo(2);
				assertThat(later.toolResponsesRead().get(1).responseData()).contains("\"replayed\":true");
			});
	}

	@Test
	void eachCallOfABatchGetsItsOwnAnswerEvenWhenOneIsRefusedBeforeTheAdvice() {
		this.runner.run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			ScriptedModel model = new ScriptedModel()
				.callsInOneTurn("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":\"lots\"}",
						"{\"sku\":\"SKU-4411\",\"quantity\":200}", "{\"quantity\":200,\"sku\":\"SKU-4411\"}")
				.answers("One quote.");

			assertThat(ask(context, model, "batch-run")).isEqualTo("One quote.");

			assertThat(tools.drafts()).isEqualTo(1);
			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read).hasSize(3);
			assertThat(read.get(0).responseData()).doesNotContain("replayed");
			assertThat(read.get(1).responseData()).as("the executed call").doesNotContain("replayed")
				.contains("\"sku\":\"SKU-4411\"");
			assertThat(read.get(2).responseData()).as("the repeat").contains("\"replayed\":true");
		});
	}

	@Test
	void aCallbackCalledDirectlyTellsItsCallerToo() {
		this.runner.run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			ToolCallback draft = callback(IdempotentToolCallbacks.from(tools), "draft_quote");
			ToolCallback send = callback(IdempotentToolCallbacks.from(tools), "send_quote");
			ToolContext run = new ToolContext(Map.of("runId", "direct-run", "userId", "rep-1"));

			String first = draft.call("{\"sku\":\"SKU-4411\",\"quantity\":200}", run);
			String repeat = draft.call("{\"quantity\":200.0,\"sku\":\" SKU-4411\"}", run);

			assertThat(tools.drafts()).isEqualTo(1);
			assertThat(first).doesNotContain("replayed");
			assertThat(repeat).contains("\"replayed\":true").contains("\"result\":" + first);
			assertThatThrownBy(() -> send.call("{\"draftId\":7}", run)).hasMessageContaining("no contact address");
			assertThat(send.call("{\"draftId\":7}", run)).contains("\"kind\":\"previous_attempt_failed\"")
				.contains("It was not attempted again");
		});
	}

	@Test
	void aCallThatCannotBeClaimedTellsItsCallerNothingWasDone() {
		this.runner.run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			ToolCallback draft = callback(IdempotentToolCallbacks.from(tools), "draft_quote");
			// The ledger's table is gone: no claim can be recorded, so nothing may run.
			new org.springframework.jdbc.core.JdbcTemplate(context.getBean(DataSource.class)).execute("DROP TABLE tool_audit");

			String answer = draft.call("{\"sku\":\"SKU-4411\",\"quantity\":200}",
					new ToolContext(Map.of("runId", "unavailable-run", "userId", "rep-1")));

			assertThat(answer).contains("\"kind\":\"refused_ledger_unavailable\"")
				.contains("Nothing happened")
				.doesNotContain("tool_audit");
			assertThat(tools.drafts()).isZero();
		});
	}

	@Test
	void aReturnDirectToolGivesTheApplicationItsResultUnwrapped() {
		this.runner.run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			ToolCallback export = callback(IdempotentToolCallbacks.from(tools), "export_drafts");
			ToolContext run = new ToolContext(Map.of("runId", "direct-run", "userId", "rep-1"));

			String first;
			String repeat;
			try (IdempotentCallScope scope = IdempotentCallScope.open()) {
				first = export.call("{\"sku\":\"SKU-9\"}", run);
				assertThat(scope.last()).as("the application's scope learns how the call was answered")
					.map(IdempotentCall::answer)
					.contains(io.idempotency.Answer.EXECUTED);
			}
			try (IdempotentCallScope scope = IdempotentCallScope.open()) {
				repeat = export.call("{\"sku\":\"SKU-9\"}", run);
				assertThat(scope.last()).map(IdempotentCall::answer).contains(io.idempotency.Answer.REPLAYED);
			}

			assertThat(repeat).isEqualTo(first).doesNotContain("replayed");
			assertThat(tools.drafts()).isEqualTo(1);
		});
	}

	@Test
	void aToolThatIsNotIdempotentReadsItsOwnResultWhenAnIdempotentCallInsideItIsReplayed() {
		this.runner.run((context) -> {
			PlanningTools planning = new PlanningTools(context.getBean(DraftTools.class));
			ToolCallback plan = callback(IdempotentToolCallbacks.from(planning), "plan_order");
			ToolContext run = new ToolContext(Map.of("runId", "nested-run", "userId", "rep-1"));

			String first = plan.call("{\"sku\":\"SKU-7\"}", run);
			String again = plan.call("{\"sku\":\"SKU-7\"}", run);

			assertThat(first).startsWith("\"planned with draft ");
			assertThat(again).as("the outer tool ran again; only the draft inside it was replayed").isEqualTo(first);
			assertThat(context.getBean(DraftTools.class).drafts()).isEqualTo(1);
		});
	}

	private static ToolCallback callback(ToolCallback[] callbacks, String name) {
		for (ToolCallback callback : callbacks) {
			if (callback.getToolDefinition().name().equals(name)) {
				return callback;
			}
		}
		throw new IllegalArgumentException(name);
	}

	private ApplicationContextRunner bootChatClient(ScriptedModel model) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
					IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencySpringAiAutoConfiguration.class,
					ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class))
			.withUserConfiguration(DraftToolsOnly.class)
			.withBean(ChatModel.class, () -> model);
	}

	/** A user request whose answer made the model call draft_quote twice with the same arguments. */
	private static ScriptedModel repeatsItsCall(ScriptedModel model) {
		return model.callsTool("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}")
			.callsTool("draft_quote", "{\"quantity\":200,\"sku\":\"SKU-4411\"}")
			.answers("One quote.");
	}

	@Test
	void eachPromptIsARunOfItsOwnWithoutTheApplicationNamingOne() {
		ScriptedModel model = repeatsItsCall(repeatsItsCall(new ScriptedModel()));
		bootChatClient(model).run((context) -> {
			ChatClient client = context.getBean(ChatClient.Builder.class).build();
			DraftTools tools = context.getBean(DraftTools.class);

			client.prompt().user("Quote 200 of SKU-4411").tools(tools).call().content();
			client.prompt().user("Quote 200 of SKU-4411 again, a second quote").tools(tools).call().content();

			assertThat(tools.drafts()).as("one per user request").isEqualTo(2);
			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read).extracting((r) -> r.responseData().contains("\"replayed\":true"))
				.containsExactly(false, true, false, true);
		});
	}

	@Test
	void aRunTheApplicationSuppliesIsKeptAcrossPrompts() {
		ScriptedModel model = repeatsItsCall(repeatsItsCall(new ScriptedModel()));
		bootChatClient(model).run((context) -> {
			ChatClient client = context.getBean(ChatClient.Builder.class).build();
			DraftTools tools = context.getBean(DraftTools.class);
			for (int i = 0; i < 2; i++) {
				client.prompt()
					.user("Quote 200 of SKU-4411")
					.tools(tools)
					.toolContext(Map.of("runId", "order-77", "userId", "rep-1"))
					.call()
					.content();
			}
			assertThat(tools.drafts()).isEqualTo(1);
		});
	}

	@Test
	void aClientsRetryOfTheSameHttpRequestIsTheSameRun() {
		ScriptedModel model = repeatsItsCall(repeatsItsCall(new ScriptedModel()));
		bootChatClient(model).withBean(RunSource.class, () -> new RequestHeaderRunSource("Idempotency-Key"))
			.run((context) -> {
				ChatClient client = context.getBean(ChatClient.Builder.class).build();
				DraftTools tools = context.getBean(DraftTools.class);
				for (int attempt = 0; attempt < 2; attempt++) {
					MockHttpServletRequest request = new MockHttpServletRequest("POST", "/agent");
					request.addHeader("Idempotency-Key", "req-8f14e45f");
					RequestContextHolder.setRequestAttributes(new ServletRequestAttributes(request));
					try {
						client.prompt().user("Quote 200 of SKU-4411").tools(tools).call().content();
					}
					finally {
						RequestContextHolder.resetRequestAttributes();
					}
				}
				assertThat(tools.drafts()).as("the retried request acted once").isEqualTo(1);
			});
	}

	@Test
	void aStreamedPromptIsARunOfItsOwnToo() {
		ScriptedModel model = repeatsItsCall(new ScriptedModel());
		bootChatClient(model).run((context) -> {
			DraftTools tools = context.getBean(DraftTools.class);
			List<String> answer = context.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("Quote 200 of SKU-4411")
				.tools(tools)
				.stream()
				.content()
				.collectList()
				.block(Duration.ofSeconds(30));

			assertThat(String.join("", answer)).isEqualTo("One quote.");
			assertThat(tools.drafts()).isEqualTo(1);
			assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"replayed\":true");
		});
	}

	@Test
	void callbacksOfAProviderBeanTellTheirCallerAsAnMcpServerWouldCallThem() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
					IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencySpringAiAutoConfiguration.class))
			.withUserConfiguration(DraftToolsOnly.class, DraftToolsAsCallbackBeans.class)
			.run((context) -> {
				ToolCallback[] callbacks = context.getBean(ToolCallbackProvider.class).getToolCallbacks();
				assertThat(callbacks).allSatisfy((c) -> assertThat(c).isInstanceOf(IdempotentToolCallback.class));
				ToolCallback draft = callback(callbacks, "draft_quote");
				ToolContext run = new ToolContext(Map.of("runId", "provider-run"));

				draft.call("{\"sku\":\"SKU-4411\",\"quantity\":200}", run);

				assertThat(draft.call("{\"sku\":\"SKU-4411\",\"quantity\":200}", run)).contains("\"replayed\":true");
				assertThat(context.getBean(DraftTools.class).drafts()).isEqualTo(1);
			});
	}

	@Test
	void callbacksOfAProviderBeanGivenToAChatClientTellTheModelToo() {
		ScriptedModel model = repeatsItsCall(new ScriptedModel());
		bootChatClient(model).withUserConfiguration(DraftToolsAsCallbackBeans.class).run((context) -> {
			context.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("Quote 200 of SKU-4411")
				.toolCallbacks(context.getBean(ToolCallbackProvider.class).getToolCallbacks())
				.toolContext(Map.of("channel", "chat"))
				.call()
				.content();

			assertThat(context.getBean(DraftTools.class).drafts()).isEqualTo(1);
			assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"replayed\":true");
		});
	}

	@Test
	void aRepeatOfAFailedCallReachesTheModelAsAReadableResult() {
		this.runner.run((context) -> {
			ScriptedModel model = new ScriptedModel().callsTool("send_quote", "{\"draftId\":7}")
				.callsTool("send_quote", "{\"draftId\":7}")
				.answers("The quote could not be sent.");

			assertThat(ask(context, model, "run-1")).isEqualTo("The quote could not be sent.");

			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read.get(0).responseData()).contains("has no contact address");
			assertThat(read.get(1).responseData()).contains("already attempted earlier in this run and failed")
				.contains("It was not attempted again");
		});
	}

	@Test
	void aToolCalledForTheFirstTimeThatFailsOnARefusedCallInsideItIsNotToldItWasARepeat() {
		this.runner.run((context) -> {
			ScriptedModel model = new ScriptedModel().callsTool("send_quote", "{\"draftId\":7}")
				.callsTool("dispatch_quote", "{\"draftId\":7}")
				.answers("The quote could not be dispatched.");
			ChatClient client = ChatClient.builder(model)
				.defaultAdvisors(
						ToolCallingAdvisor.builder().toolCallingManager(context.getBean(ToolCallingManager.class)).build())
				.build();

			client.prompt()
				.user("Send the quote of draft 7 and book its delivery")
				.tools(context.getBean(DraftTools.class), context.getBean(DispatchTools.class))
				.toolContext(Map.of("runId", "dispatch-run", "userId", "rep-1"))
				.call()
				.content();

			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read.get(1).name()).isEqualTo("dispatch_quote");
			assertThat(read.get(1).responseData())
				.as("dispatch_quote ran for the first time: its failure is its own, not a repeat's answer")
				.doesNotContain("\"kind\"")
				.doesNotContain("\"replayed\"");
		});
	}

}
