package io.idempotency.docs;

import java.time.Duration;
import java.util.Map;

import io.idempotency.docs.TicketApplication.Tickets;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.test.AutoConfigureInMemoryLedger;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.test.ai.ScriptedChatModel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static io.idempotency.test.LedgerAssertions.assertThatLedger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The guide's test of the quick start's tool, as an application writes it: Spring Boot's test support, the
 * in-memory ledger, the scripted model and the ledger assertions of {@code idempotency-test}.
 */
// tag::test[]
@SpringBootTest
@AutoConfigureInMemoryLedger
class TicketToolsTest {

    @TestConfiguration
    static class Model {

        @Bean
        ScriptedChatModel chatModel() {    // the application's ChatModel in this test
            return new ScriptedChatModel();
        }
    }

    @Autowired ScriptedChatModel model;
    @Autowired InMemoryLedger ledger;
    @Autowired ChatClient.Builder chatClient;
    @Autowired TicketTools ticketTools;
    @Autowired Tickets tickets;

    @BeforeEach
    void forgetEarlierTests() {
        model.reset();
        ledger.clear();
    }

    @Test
    void theModelsRepeatInOneRunOpensOneTicket() {
        model.callsTool("open_ticket",
                        "{\"accountName\": \"Acme\", \"issue\": \"leak\"}",
                        "{\"issue\": \"leak\", \"accountName\": \"Acme\"}")   // the same call, reordered
             .answers("Ticket opened.");

        String answer = chatClient.build().prompt("Open a ticket for Acme's leak")
                .tools(ticketTools)
                .call().content();

        assertThat(answer).isEqualTo("Ticket opened.");
        assertThatLedger(ledger).hasExecutedOnce("open_ticket");
        assertThatLedger(ledger).call("open_ticket").succeeded().wasReplayed(1);
        assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"kind\":\"replayed\"");
        model.assertScriptUsed();
    }
    // end::test[]

    // tag::reconcile[]
    @Test
    void aTimedOutCallIsFoundByFindTicket(@Autowired Reconciler reconciler) {
        tickets.timeOutAfterTheNextTicket();    // the ticket is opened, but the answer times out
        Run run = new Run("run-1", "user-1");
        catchThrowable(() -> RunContext.run(run,
                () -> ticketTools.openTicket("Acme", "leak", new ToolContext(Map.of()))));
        assertThatLedger(ledger).call("open_ticket").isUnknown();

        ledger.advance(Duration.ofMinutes(5));   // past idempotency.reconciler.stale-after
        reconciler.reconcile();

        assertThatLedger(ledger).call("open_ticket").succeeded();
    }
    // end::reconcile[]
// tag::test[]
}
// end::test[]
