package io.idempotency.docs;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.idempotency.docs.QuickStart.Ticket;
import io.idempotency.docs.QuickStart.TicketSystem;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A new application: the quick start's tool, a ticket system, and the application's {@code DataSource};
 * everything else is auto-configured. Its tests give it a model.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(TicketTools.class)
class TicketApplication {

    @Bean
    DataSource dataSource() {
        // The test JVM's shared pool, which this application must not close.
        return new DelegatingDataSource(TestDatabases.dataSource(TestDatabase.POSTGRESQL));
    }

    @Bean
    Tickets tickets() {
        return new Tickets();
    }

    /** A ticket system in memory, that keeps every ticket it opened. */
    static final class Tickets implements TicketSystem {

        private final List<Ticket> created = new CopyOnWriteArrayList<>();

        private final Map<String, Ticket> byReference = new ConcurrentHashMap<>();

        private volatile boolean timeOut;

        @Override
        public Ticket create(String accountName, String issue, String reference) {
            Ticket ticket = new Ticket("TCK-" + (this.created.size() + 1), accountName, issue, reference);
            this.created.add(ticket);
            this.byReference.put(reference, ticket);
            if (this.timeOut) {
                this.timeOut = false;
                throw new UncheckedIOException(new SocketTimeoutException("Read timed out"));
            }
            return ticket;
        }

        /** The next ticket is opened, but its caller is not told: the answer times out. */
        void timeOutAfterTheNextTicket() {
            this.timeOut = true;
        }

        @Override
        public Optional<Ticket> findByReference(String reference) {
            return Optional.ofNullable(this.byReference.get(reference));
        }

        List<Ticket> created() {
            return List.copyOf(this.created);
        }

    }

}
