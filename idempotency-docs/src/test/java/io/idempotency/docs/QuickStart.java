package io.idempotency.docs;

import javax.sql.DataSource;

import io.idempotency.autoconfigure.IdempotencyDataSource;

import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * docs/getting-started.md: the ledger's {@code DataSource} beside the application's own. The rest of the quick
 * start is an application of its own, in {@code io.idempotency.docs.quickstart}.
 */
class QuickStart {

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

}
