package io.idempotency.docs;

import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import io.idempotency.autoconfigure.IdempotencyDataSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The quick start of README.md and docs/getting-started.md: the ledger's {@code DataSource} and a run per
 * prompt; its tool, with its reconcile method, is {@link TicketTools}. QuickStartApplicationTest runs them.
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

    static String ask(ChatClient.Builder chatClientBuilder, TicketTools ticketTools, String question, User user) {
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
