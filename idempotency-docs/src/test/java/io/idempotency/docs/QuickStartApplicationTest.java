package io.idempotency.docs;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.Answer;
import io.idempotency.MissingRunException;
import io.idempotency.ToolResult;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.docs.QuickStart.Ticket;
import io.idempotency.docs.QuickStart.User;
import io.idempotency.docs.TicketApplication.Tickets;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.test.ai.ScriptedChatModel;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The quick start run as a new application runs it: Spring Boot's auto-configuration, the starter, Spring AI's
 * auto-configured {@code ChatClient.Builder} and tool loop, {@link TicketTools} and
 * {@link QuickStart#ask the run per prompt} exactly as README.md and docs/getting-started.md show them, the
 * ledger on PostgreSQL, and a scripted model in place of a real one. Each test holds a sentence of the pages
 * to what the application does.
 */
class QuickStartApplicationTest {

    private static final JsonMapper JSON = new JsonMapper();

    /** The ledger's table, this test's own: the quick start's "elsewhere" case, initialized at start-up. */
    private static final String TABLE = "tool_audit_quick_start";

    @Test
    void aRepeatInTheSameRunOpensNoSecondTicketAndTheModelReadsTheFirstCallsTicket() {
        try (ConfigurableApplicationContext application = start()) {
            ScriptedChatModel model = application.getBean(ScriptedChatModel.class);
            Tickets tickets = application.getBean(Tickets.class);
            User user = new User("user-" + UUID.randomUUID());
            // The model calls the tool three times in one turn: the call, the same call with its arguments in
            // another order, and the same call re-spaced, as a retry sends it.
            model.callsTool("open_ticket", "{\"accountName\": \"Acme\", \"issue\": \"pump noise\"}",
                    "{\"issue\": \"pump noise\", \"accountName\": \"Acme\"}",
                    "{ \"accountName\":\"Acme\" ,\"issue\":\"pump noise\" }")
                .answers("Ticket opened.");

            String answer = QuickStart.ask(application.getBean(ChatClient.Builder.class),
                    application.getBean(TicketTools.class), "Open a ticket: Acme's pump is noisy", user);

            assertThat(answer).isEqualTo("Ticket opened.");
            assertThat(tickets.created()).as("one ticket for three calls in one run").hasSize(1);
            Ticket ticket = tickets.created().get(0);
            List<JsonNode> read = toolResponsesRead(model);
            assertThat(read).hasSize(3);
            assertThat(read.get(0).get("kind").asString()).isEqualTo("executed");
            assertThat(read.get(0).get("replayed").asBoolean()).isFalse();
            assertThat(read.get(0).get("data").get("id").asString()).isEqualTo(ticket.id());
            for (JsonNode repeat : read.subList(1, 3)) {
                assertThat(repeat.get("replayed").asBoolean()).isTrue();
                assertThat(repeat.get("kind").asString()).isEqualTo("replayed");
                assertThat(repeat.get("data")).as("the first call's ticket").isEqualTo(read.get(0).get("data"));
                assertThat(repeat.get("message").asString()).contains("Nothing was done again");
            }
            // The reference the ticket system holds is derived from the call's key, for findTicket to ask about.
            assertThat(ticket.reference()).matches("atlas-[0-9a-f]{16}");
            JdbcTemplate ledger = new JdbcTemplate(application.getBean(DataSource.class));
            assertThat(ledger.queryForList("SELECT tool, status FROM " + TABLE + " WHERE user_id = ?", user.id()))
                .as("one row, under the name the model calls the tool by, with the user of the prompt")
                .containsExactly(Map.of("tool", "open_ticket", "status", "succeeded"));
        }
    }

    @Test
    void theNextPromptIsANewRunAndOpensATicketAgain() {
        try (ConfigurableApplicationContext application = start()) {
            ScriptedChatModel model = application.getBean(ScriptedChatModel.class);
            Tickets tickets = application.getBean(Tickets.class);
            User user = new User("user-" + UUID.randomUUID());
            for (int prompt = 1; prompt <= 2; prompt++) {
                model.callsTool("open_ticket", "{\"accountName\": \"Acme\", \"issue\": \"pump noise\"}")
                    .answers("Ticket opened.");
                QuickStart.ask(application.getBean(ChatClient.Builder.class), application.getBean(TicketTools.class),
                        "Open a ticket: Acme's pump is noisy", user);
                assertThat(toolResponsesRead(model).get(prompt - 1).get("kind").asString()).isEqualTo("executed");
            }
            assertThat(tickets.created()).as("the same request made again is a new run").hasSize(2);
            JdbcTemplate ledger = new JdbcTemplate(application.getBean(DataSource.class));
            assertThat(ledger.queryForObject("SELECT COUNT(DISTINCT run_id) FROM " + TABLE + " WHERE user_id = ?",
                    Integer.class, user.id())).isEqualTo(2);
        }
    }

    /** The tool's callback called directly, decorated as getting-started says: a repeat in a run is replayed. */
    @Test
    void aDirectlyCalledCallbackOfTheToolActsOncePerRun() {
        try (ConfigurableApplicationContext application = start()) {
            Tickets tickets = application.getBean(Tickets.class);
            ToolCallback[] callbacks = IdempotentToolCallbacks.from(application.getBean(TicketTools.class));
            assertThat(callbacks).hasSize(1);
            ToolContext context = new ToolContext(Map.of("runId", "run-" + UUID.randomUUID(), "userId", "user-1"));

            JsonNode first = JSON.readTree(callbacks[0].call("{\"accountName\":\"Acme\",\"issue\":\"leak\"}", context));
            JsonNode repeat = JSON.readTree(callbacks[0].call("{\"issue\":\"leak\",\"accountName\":\"Acme\"}", context));

            assertThat(tickets.created()).hasSize(1);
            assertThat(first.get("kind").asString()).isEqualTo("executed");
            assertThat(repeat.get("kind").asString()).isEqualTo("replayed");
            assertThat(repeat.get("data")).isEqualTo(first.get("data"));
        }
    }

    /**
     * The reconciler asks the quick start's {@code findTicket} (a package-private method of a package-private
     * class) about a call that timed out after the ticket system opened its ticket: the call is found done,
     * and a repeat in its run reads that ticket.
     */
    @Test
    void theReconcilerAsksFindTicketAboutACallWhoseOutcomeIsUnknown() throws Exception {
        try (ConfigurableApplicationContext application = start("idempotency.reconciler.stale-after=1s",
                "idempotency.reconciler.interval=100ms")) {
            TicketTools tools = application.getBean(TicketTools.class);
            Tickets tickets = application.getBean(Tickets.class);
            Run run = new Run("run-" + UUID.randomUUID(), "user-" + UUID.randomUUID());
            tickets.timeOutAfterTheNextTicket();

            assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(
                    () -> RunContext.run(run, () -> tools.openTicket("Acme", "leak", new ToolContext(Map.of()))));
            JdbcTemplate ledger = new JdbcTemplate(application.getBean(DataSource.class));
            String status = "SELECT status FROM " + TABLE + " WHERE run_id = ?";
            assertThat(ledger.queryForObject(status, String.class, run.runId())).isEqualTo("unknown");

            await().atMost(Duration.ofSeconds(30))
                .until(() -> ledger.queryForObject(status, String.class, run.runId()), "succeeded"::equals);
            ToolResult<Ticket> repeat = RunContext.call(run,
                    () -> tools.openTicket("Acme", "leak", new ToolContext(Map.of())));
            assertThat(repeat.kind()).isEqualTo(Answer.REPLAYED);
            assertThat(repeat.data()).isEqualTo(tickets.created().get(0));
            assertThat(tickets.created()).hasSize(1);
        }
    }

    /**
     * configuration.md: with {@code idempotency.enabled=false} the tools "run as if not annotated": the quick
     * start's tool, as written, executes every call, each with a reference of its own, and the model reads
     * each ticket.
     */
    @Test
    void withIdempotencySwitchedOffTheToolRunsAsIfNotAnnotated() {
        try (ConfigurableApplicationContext application = start("idempotency.enabled=false")) {
            ScriptedChatModel model = application.getBean(ScriptedChatModel.class);
            Tickets tickets = application.getBean(Tickets.class);
            model.callsTool("open_ticket", "{\"accountName\": \"Acme\", \"issue\": \"pump noise\"}",
                    "{\"issue\": \"pump noise\", \"accountName\": \"Acme\"}")
                .answers("Two tickets opened.");

            QuickStart.ask(application.getBean(ChatClient.Builder.class), application.getBean(TicketTools.class),
                    "Open a ticket: Acme's pump is noisy", new User("user-1"));

            assertThat(tickets.created()).as("nothing deduplicated").hasSize(2);
            assertThat(tickets.created()).extracting(Ticket::reference).doesNotHaveDuplicates();
            List<JsonNode> read = toolResponsesRead(model);
            assertThat(read).hasSize(2);
            for (int i = 0; i < 2; i++) {
                assertThat(read.get(i).get("ok").asBoolean()).as(read.get(i).toString()).isTrue();
                assertThat(read.get(i).get("data").get("id").asString()).isEqualTo(tickets.created().get(i).id());
            }
        }
    }

    /**
     * With {@code idempotency.missing-run=execute-without-deduplication}, a call outside any run executes
     * undeduplicated: the quick start's tool, as written, runs there too. By default, it is refused.
     */
    @Test
    void outsideARunTheToolRunsWhereTheApplicationChoseToExecuteWithoutDeduplication() {
        try (ConfigurableApplicationContext application = start(
                "idempotency.missing-run=execute-without-deduplication")) {
            TicketTools tools = application.getBean(TicketTools.class);

            tools.openTicket("Acme", "pump noise", new ToolContext(Map.of()));
            tools.openTicket("Acme", "pump noise", new ToolContext(Map.of()));

            assertThat(application.getBean(Tickets.class).created()).hasSize(2)
                .extracting(Ticket::reference)
                .doesNotHaveDuplicates();
        }
        try (ConfigurableApplicationContext application = start()) {
            TicketTools tools = application.getBean(TicketTools.class);
            assertThatExceptionOfType(MissingRunException.class)
                .isThrownBy(() -> tools.openTicket("Acme", "pump noise", new ToolContext(Map.of())));
            assertThat(application.getBean(Tickets.class).created()).isEmpty();
        }
    }

    private static ConfigurableApplicationContext start(String... properties) {
        List<String> all = new ArrayList<>(List.of("spring.main.banner-mode=off",
                "idempotency.jdbc.table-name=" + TABLE, "idempotency.jdbc.initialize-schema=always"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(TicketApplication.class, ScriptedModel.class).web(WebApplicationType.NONE)
            .properties(all.toArray(String[]::new))
            .run();
    }

    /** The model of these tests: the published scripted model, as the application's {@code ChatModel}. */
    @Configuration(proxyBeanMethods = false)
    static class ScriptedModel {

        @Bean
        ScriptedChatModel chatModel() {
            return new ScriptedChatModel();
        }

    }

    /** What the model read of each tool call it made, in order, as JSON. */
    private static List<JsonNode> toolResponsesRead(ScriptedChatModel model) {
        return model.toolResponsesRead().stream().map((response) -> JSON.readTree(response.responseData())).toList();
    }

}
