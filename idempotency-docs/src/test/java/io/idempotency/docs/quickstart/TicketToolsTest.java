package io.idempotency.docs.quickstart;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.idempotency.reconcile.Reconciler;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.test.AutoConfigureInMemoryLedger;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.test.ai.ScriptedChatModel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

import static io.idempotency.test.LedgerAssertions.assertThatLedger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;

/**
 * The guide's test of the quick start's tool, as an application writes it: Spring Boot's test support, the
 * in-memory ledger, the scripted model and the ledger assertions of {@code idempotency-test}, in the quick
 * start's application.
 */
// tag::test[]
@SpringBootTest(properties = "spring.ai.model.chat=none")   // no provider's ChatModel: the scripted one answers
@AutoConfigureInMemoryLedger
class TicketToolsTest {

    @TestConfiguration
    static class Model {

        @Bean
        ScriptedChatModel chatModel() {    // the application's only ChatModel in this test
            return new ScriptedChatModel();
        }
    }

    @Autowired ScriptedChatModel model;
    @Autowired InMemoryLedger ledger;
    @Autowired Assistant assistant;
    @Autowired TicketTools ticketTools;
    @MockitoBean TicketSystem tickets;   // the help desk, in place of the application's

    @BeforeEach
    void forgetEarlierTests() {
        model.reset();
        ledger.clear();
        given(tickets.create(any(), any(), any())).willAnswer((call) -> new Ticket("T-1",
                call.getArgument(0), call.getArgument(1), call.getArgument(2)));
    }

    @Test
    void theModelsRepeatInOneRunOpensOneTicket() {
        model.callsTool("open_ticket",
                        "{\"accountName\": \"Acme\", \"issue\": \"leak\"}",
                        "{\"issue\": \"leak\", \"accountName\": \"Acme\"}")   // the same call, reordered
             .answers("Ticket opened.");

        String answer = assistant.ask("Open a ticket for Acme's leak", "user-1");

        assertThat(answer).isEqualTo("Ticket opened.");
        then(tickets).should().create(any(), any(), any());   // once
        assertThatLedger(ledger).hasExecutedOnce("open_ticket");
        assertThatLedger(ledger).call("open_ticket").succeeded().wasReplayed(1).wasMadeBy("user-1");
        assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"kind\":\"replayed\"");
        model.assertScriptUsed();
    }
    // end::test[]

    // tag::reconcile[]
    @Test
    void aTimedOutCallIsFoundByFindTicket(@Autowired Reconciler reconciler) {
        // The help desk opens the ticket, but its answer times out.
        Ticket opened = new Ticket("T-7", "Acme", "leak", "atlas-0123456789abcdef");
        given(tickets.create(any(), any(), any()))
                .willThrow(new UncheckedIOException(new SocketTimeoutException("Read timed out")));
        given(tickets.findByReference(any())).willReturn(Optional.of(opened));
        Run run = new Run("run-1", "user-1");
        catchThrowable(() -> RunContext.run(run,
                () -> ticketTools.openTicket("Acme", "leak", new ToolContext(Map.of()))));
        assertThatLedger(ledger).call("open_ticket").isUnknown();

        ledger.advance(Duration.ofMinutes(5));   // past idempotency.reconciler.stale-after
        reconciler.reconcile();

        assertThatLedger(ledger).call("open_ticket").succeeded().hasResult(
                "{\"id\": \"T-7\", \"accountName\": \"Acme\", \"issue\": \"leak\", \"reference\": \"atlas-0123456789abcdef\"}");
    }
    // end::reconcile[]
// tag::test[]
}
// end::test[]
