package io.idempotency.docs;

import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.autoconfigure.IdempotencyDataSource;
import io.idempotency.key.IdempotencyKey;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.stereotype.Component;

/**
 * The quick start of README.md and docs/getting-started.md: the ledger's {@code DataSource}, one
 * idempotent tool with its reconcile method, and a run per prompt.
 */
class QuickStart {

    record Ticket(String id, String accountName, String issue, String reference) {
    }

    /** The external ticket system the tool acts on. */
    interface TicketSystem {

        Ticket create(String accountName, String issue, String reference);

        Optional<Ticket> findByReference(String reference);

    }

    record User(String id) {
    }

    @Configuration(proxyBeanMethods = false)
    static class LedgerConfiguration {

        // tag::ledger-data-source[]
        @Bean
        @IdempotencyDataSource
        DataSource ledgerDataSource() {
            return DataSourceBuilder.create().url("jdbc:postgresql://ledger-db:5432/ledger").build();
        }

        // The application's own, from spring.datasource.*: Boot's backs off once a DataSource is declared.
        @Bean
        @Primary
        DataSource dataSource(DataSourceProperties properties) {
            return properties.initializeDataSourceBuilder().build();
        }
        // end::ledger-data-source[]

    }

    private final TicketSystem tickets;

    QuickStart(TicketSystem tickets) {
        this.tickets = tickets;
    }

    // tag::ticket-tools[]
    @Component
    class TicketTools {

        @Tool(description = "Open a support ticket")
        @IdempotentTool(name = "open_ticket", reconcile = "findTicket")
        public ToolResult<Ticket> openTicket(String accountName, String issue, ToolContext toolContext) {
            // A reference derived from the key: the ticket system can be asked about it later.
            String reference = IdempotentInvocation.current().key().externalReference("atlas");
            return ToolResult.of(tickets.create(accountName, issue, reference));
        }

        // "Did this happen?" for a call whose outcome is unknown (a timeout, a crash).
        Reconciliation<Ticket> findTicket(IdempotencyKey key) {
            return Reconciliation.of(tickets.findByReference(key.externalReference("atlas")));
        }
    }
    // end::ticket-tools[]

    String ask(ChatClient.Builder chatClientBuilder, TicketTools ticketTools, String question, User user) {
        // tag::run-per-prompt[]
        // One run per prompt: the model's repeated calls within it act once; the next prompt is a new run.
        String answer = chatClientBuilder.build().prompt(question)
                .tools(ticketTools)
                .toolContext(Map.of("userId", user.id()))   // optional: the user, so replays never cross users
                .call().content();
        // end::run-per-prompt[]
        return answer;
    }

}
