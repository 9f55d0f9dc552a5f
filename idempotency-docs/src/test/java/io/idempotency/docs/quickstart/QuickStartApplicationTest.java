package io.idempotency.docs.quickstart;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.Answer;
import io.idempotency.MissingRunException;
import io.idempotency.ToolResult;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.test.ai.ScriptedChatModel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.willAnswer;

/**
 * The quick start run as a new application runs it: Spring Boot's auto-configuration, the starter, Spring AI's
 * auto-configured {@code ChatClient.Builder} and tool loop, and the quick start's snippets exactly as README.md
 * and docs/getting-started.md show them ({@link TicketSystem}, {@link TicketTools}, {@link Assistant}), the
 * ledger on PostgreSQL, and a scripted model in place of a real one. Each test holds a sentence of the pages
 * to what the application does.
 */
@SpringBootTest
@Import(DatabaseAndModel.class)
class QuickStartApplicationTest {

    private static final JsonMapper JSON = new JsonMapper();

    /** The ledger's table, the quick start application's own (its application.properties). */
    private static final String TABLE = "tool_audit_quick_start";

    @Autowired ScriptedChatModel model;
    @Autowired Assistant assistant;
    @Autowired TicketTools tools;
    @Autowired HelpDesk helpDesk;
    @Autowired DataSource dataSource;

    /** An account of each test's own: the help desk and the ledger keep the other tests' tickets. */
    String account = "Acme " + UUID.randomUUID();

    @BeforeEach
    void forgetTheScript() {
        this.model.reset();
    }

    @Test
    void aRepeatInTheSameRunOpensNoSecondTicketAndTheModelReadsTheFirstCallsTicket() {
        String user = "user-" + UUID.randomUUID();
        // The model calls the tool three times in one turn: the call, the same call with its arguments in
        // another order, and the same call re-spaced, as a retry sends it.
        this.model.callsTool("open_ticket", "{\"accountName\": \"" + this.account + "\", \"issue\": \"pump noise\"}",
                "{\"issue\": \"pump noise\", \"accountName\": \"" + this.account + "\"}",
                "{ \"accountName\":\"" + this.account + "\" ,\"issue\":\"pump noise\" }")
            .answers("Ticket opened.");

        String answer = this.assistant.ask("Open a ticket: Acme's pump is noisy", user);

        assertThat(answer).isEqualTo("Ticket opened.");
        List<Ticket> tickets = this.helpDesk.openedFor(this.account);
        assertThat(tickets).as("one ticket for three calls in one run").hasSize(1);
        List<JsonNode> read = toolResponsesRead();
        assertThat(read).hasSize(3);
        assertThat(read.get(0).get("kind").asString()).isEqualTo("executed");
        assertThat(read.get(0).get("replayed").asBoolean()).isFalse();
        assertThat(read.get(0).get("data").get("id").asString()).isEqualTo(tickets.get(0).id());
        for (JsonNode repeat : read.subList(1, 3)) {
            assertThat(repeat.get("replayed").asBoolean()).isTrue();
            assertThat(repeat.get("kind").asString()).isEqualTo("replayed");
            assertThat(repeat.get("data")).as("the first call's ticket").isEqualTo(read.get(0).get("data"));
            assertThat(repeat.get("message").asString()).contains("Nothing was done again");
        }
        // The reference the ticket system holds is derived from the call's key, for findTicket to ask about.
        assertThat(tickets.get(0).reference()).matches("atlas-[0-9a-f]{16}");
        assertThat(new JdbcTemplate(this.dataSource).queryForList("SELECT tool, status FROM " + TABLE + " WHERE user_id = ?", user))
            .as("one row, under the name the model calls the tool by, with the user of the prompt")
            .containsExactly(Map.of("tool", "open_ticket", "status", "succeeded"));
    }

    @Test
    void theNextPromptIsANewRunAndOpensATicketAgain() {
        String user = "user-" + UUID.randomUUID();
        for (int prompt = 1; prompt <= 2; prompt++) {
            this.model.callsTool("open_ticket", "{\"accountName\": \"" + this.account + "\", \"issue\": \"pump noise\"}")
                .answers("Ticket opened.");
            this.assistant.ask("Open a ticket: Acme's pump is noisy", user);
            assertThat(toolResponsesRead().get(prompt - 1).get("kind").asString()).isEqualTo("executed");
        }
        assertThat(this.helpDesk.openedFor(this.account)).as("the same request made again is a new run").hasSize(2);
        assertThat(new JdbcTemplate(this.dataSource).queryForObject(
                "SELECT COUNT(DISTINCT run_id) FROM " + TABLE + " WHERE user_id = ?", Integer.class, user)).isEqualTo(2);
    }

    /** The tool's callback called directly, decorated as getting-started says: a repeat in a run is replayed. */
    @Test
    void aDirectlyCalledCallbackOfTheToolActsOncePerRun() {
        ToolCallback[] callbacks = IdempotentToolCallbacks.from(this.tools);
        assertThat(callbacks).hasSize(1);
        ToolContext context = new ToolContext(Map.of("runId", "run-" + UUID.randomUUID(), "userId", "user-1"));

        JsonNode first = JSON.readTree(callbacks[0].call("{\"accountName\":\"" + this.account + "\",\"issue\":\"leak\"}", context));
        JsonNode repeat = JSON.readTree(callbacks[0].call("{\"issue\":\"leak\",\"accountName\":\"" + this.account + "\"}", context));

        assertThat(this.helpDesk.openedFor(this.account)).hasSize(1);
        assertThat(first.get("kind").asString()).isEqualTo("executed");
        assertThat(repeat.get("kind").asString()).isEqualTo("replayed");
        assertThat(repeat.get("data")).isEqualTo(first.get("data"));
    }

    /** By default a call outside any run is refused, and nothing is executed. */
    @Test
    void outsideARunTheToolIsRefused() {
        assertThatExceptionOfType(MissingRunException.class)
            .isThrownBy(() -> this.tools.openTicket(this.account, "pump noise", new ToolContext(Map.of())));
        assertThat(this.helpDesk.openedFor(this.account)).isEmpty();
    }

    private List<JsonNode> toolResponsesRead() {
        return toolResponsesRead(this.model);
    }

    private static List<JsonNode> toolResponsesRead(ScriptedChatModel model) {
        return model.toolResponsesRead().stream().map((response) -> JSON.readTree(response.responseData())).toList();
    }

    /**
     * The reconciler asks the quick start's {@code findTicket} (a package-private method of a package-private
     * class) about a call that timed out after the help desk opened its ticket: the call is found done, and a
     * repeat in its run reads that ticket.
     */
    @Nested
    @TestPropertySource(properties = { "idempotency.reconciler.stale-after=1s", "idempotency.reconciler.interval=100ms" })
    class WhereTheReconcilerRunsOften {

        // A nested class's own context: its beans are its own fields.
        @Autowired TicketTools tools;
        @Autowired DataSource dataSource;
        @MockitoSpyBean HelpDesk timingOut;

        @Test
        void theReconcilerAsksFindTicketAboutACallWhoseOutcomeIsUnknown() throws Exception {
            willAnswer((call) -> {
                call.callRealMethod();
                throw new UncheckedIOException(new SocketTimeoutException("Read timed out"));
            }).given(this.timingOut).create(any(), any(), any());
            Run run = new Run("run-" + UUID.randomUUID(), "user-" + UUID.randomUUID());

            assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> RunContext.run(run,
                    () -> this.tools.openTicket(QuickStartApplicationTest.this.account, "leak", new ToolContext(Map.of()))));
            JdbcTemplate ledger = new JdbcTemplate(this.dataSource);
            String status = "SELECT status FROM " + TABLE + " WHERE run_id = ?";
            assertThat(ledger.queryForObject(status, String.class, run.runId())).isEqualTo("unknown");

            await().atMost(Duration.ofSeconds(30))
                .until(() -> ledger.queryForObject(status, String.class, run.runId()), "succeeded"::equals);
            ToolResult<Ticket> repeat = RunContext.call(run, () -> this.tools
                .openTicket(QuickStartApplicationTest.this.account, "leak", new ToolContext(Map.of())));
            assertThat(repeat.kind()).isEqualTo(Answer.REPLAYED);
            List<Ticket> opened = this.timingOut.openedFor(QuickStartApplicationTest.this.account);
            assertThat(opened).hasSize(1);
            assertThat(repeat.data()).isEqualTo(opened.get(0));
        }

    }

    /**
     * configuration.md: with {@code idempotency.enabled=false} the tools "run as if not annotated": the quick
     * start's tool, as written, executes every call, each with a reference of its own, and the model reads
     * each ticket.
     */
    @Nested
    @TestPropertySource(properties = "idempotency.enabled=false")
    class WithIdempotencySwitchedOff {

        @Autowired ScriptedChatModel model;
        @Autowired Assistant assistant;
        @Autowired HelpDesk helpDesk;

        @Test
        void theToolRunsAsIfNotAnnotated() {
            String account = QuickStartApplicationTest.this.account;
            this.model.reset();
            this.model
                .callsTool("open_ticket", "{\"accountName\": \"" + account + "\", \"issue\": \"pump noise\"}",
                        "{\"issue\": \"pump noise\", \"accountName\": \"" + account + "\"}")
                .answers("Two tickets opened.");

            this.assistant.ask("Open a ticket: Acme's pump is noisy", "user-1");

            List<Ticket> tickets = this.helpDesk.openedFor(account);
            assertThat(tickets).as("nothing deduplicated").hasSize(2);
            assertThat(tickets).extracting(Ticket::reference).doesNotHaveDuplicates();
            List<JsonNode> read = toolResponsesRead(this.model);
            assertThat(read).hasSize(2);
            for (int i = 0; i < 2; i++) {
                assertThat(read.get(i).get("ok").asBoolean()).as(read.get(i).toString()).isTrue();
                assertThat(read.get(i).get("data").get("id").asString()).isEqualTo(tickets.get(i).id());
            }
        }

    }

    /**
     * With {@code idempotency.missing-run=execute-without-deduplication}, a call outside any run executes
     * undeduplicated: the quick start's tool, as written, runs there too.
     */
    @Nested
    @TestPropertySource(properties = "idempotency.missing-run=execute-without-deduplication")
    class WhereCallsOutsideARunExecute {

        @Autowired TicketTools tools;
        @Autowired HelpDesk helpDesk;

        @Test
        void theToolRunsOutsideARun() {
            String account = QuickStartApplicationTest.this.account;

            this.tools.openTicket(account, "pump noise", new ToolContext(Map.of()));
            this.tools.openTicket(account, "pump noise", new ToolContext(Map.of()));

            assertThat(this.helpDesk.openedFor(account)).hasSize(2)
                .extracting(Ticket::reference)
                .doesNotHaveDuplicates();
        }

    }

}
