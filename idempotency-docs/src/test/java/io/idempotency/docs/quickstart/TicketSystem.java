package io.idempotency.docs.quickstart;

import java.util.Optional;

// The quick start's ticket system, as docs/getting-started.md shows it: the application's client of its help
// desk, which the tool acts on. The quick start's application has one in memory (HelpDesk).
// tag::ticket-system[]
// The application's client of its help desk.
interface TicketSystem {

    Ticket create(String accountName, String issue, String reference);

    Optional<Ticket> findByReference(String reference);
}

record Ticket(String id, String accountName, String issue, String reference) {
}
// end::ticket-system[]
