package io.idempotency.docs.quickstart;

import javax.sql.DataSource;

import io.idempotency.test.ai.ScriptedChatModel;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * What the quick start application's tests give it in place of the application's own: its database (the
 * ledger on PostgreSQL) and its model (scripted).
 */
@TestConfiguration(proxyBeanMethods = false)
class DatabaseAndModel {

    @Bean
    DataSource dataSource() {
        // The test JVM's shared pool, which this application must not close.
        return new DelegatingDataSource(TestDatabases.dataSource(TestDatabase.POSTGRESQL));
    }

    @Bean
    ScriptedChatModel chatModel() {
        return new ScriptedChatModel();
    }

}
