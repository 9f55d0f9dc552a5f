package io.idempotency.docs.quickstart;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * The quick start application's help desk, in memory: what the pages leave to the application (a client of
 * its own help desk). Its tests replace it where they need one that times out or is down.
 */
@Component
class HelpDesk implements TicketSystem {

    private final AtomicInteger numbers = new AtomicInteger(1000);

    private final Map<String, Ticket> byReference = new ConcurrentHashMap<>();

    private final List<Ticket> created = new CopyOnWriteArrayList<>();

    @Override
    public Ticket create(String accountName, String issue, String reference) {
        Ticket ticket = new Ticket("T-" + this.numbers.incrementAndGet(), accountName, issue, reference);
        this.byReference.put(reference, ticket);
        this.created.add(ticket);
        return ticket;
    }

    @Override
    public Optional<Ticket> findByReference(String reference) {
        return Optional.ofNullable(this.byReference.get(reference));
    }

    /** The tickets opened for an account, in order. */
    List<Ticket> openedFor(String accountName) {
        return this.created.stream().filter((ticket) -> ticket.accountName().equals(accountName)).toList();
    }

}
