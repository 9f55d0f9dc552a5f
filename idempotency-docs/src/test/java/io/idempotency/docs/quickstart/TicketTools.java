package io.idempotency.docs.quickstart;

import java.util.UUID;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;

// The quick start's tool, as README.md and docs/getting-started.md show it: a package-private class, as an
// application writes it. QuickStartApplicationTest runs it.
// tag::ticket-tools[]
@Component
class TicketTools {

    private final TicketSystem tickets;

    TicketTools(TicketSystem tickets) {
        this.tickets = tickets;
    }

    @Tool(name = "open_ticket", description = "Open a support ticket")
    @IdempotentTool(reconcile = "findTicket")   // named as the model calls it: open_ticket
    public ToolResult<Ticket> openTicket(String accountName, String issue, ToolContext toolContext) {
        // A reference derived from the call's key: findTicket asks the ticket system about it later.
        // With idempotency switched off there is no key: each call gets a reference of its own.
        String reference = IdempotentInvocation.find()
                .map((call) -> call.key().externalReference("atlas"))
                .orElseGet(() -> "atlas-" + UUID.randomUUID());
        return ToolResult.of(tickets.create(accountName, issue, reference));
    }

    // "Did this happen?" for a call whose outcome is unknown (a timeout, a crash).
    Reconciliation<Ticket> findTicket(IdempotencyKey key) {
        return Reconciliation.of(tickets.findByReference(key.externalReference("atlas")));
    }
}
// end::ticket-tools[]
