package io.idempotency.docs;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;

import org.springframework.ai.tool.annotation.Tool;

/** docs/tools-runs-and-keys.md: a tool keyed on the arguments that name the action. */
class KeyChoices {

    record Ticket(String id) {
    }

    static class TicketTools {

        // tag::key-arguments[]
        @Tool(description = "Open a support ticket")
        @IdempotentTool(reconcile = "findTicket", keyArguments = { "accountName", "issue" })
        public Ticket openTicket(String accountName, String issue, String description) {
            return new Ticket("T-1");
        }
        // end::key-arguments[]

        Reconciliation<Ticket> findTicket(IdempotencyKey key) {
            return Reconciliation.notFound();
        }

    }

}
