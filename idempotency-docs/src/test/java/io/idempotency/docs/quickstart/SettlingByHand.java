package io.idempotency.docs.quickstart;

import java.time.Duration;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Settlements;

import org.springframework.context.ApplicationContext;

/**
 * docs/operating.md: the calls that wait for a human, listed and settled by an operator, in the quick start's
 * application. Each settlement is a method of its own, as each is one of three choices; SettlingOverHttpTest
 * settles a call of the quick start's tool with the first.
 */
class SettlingByHand {

    void review(ApplicationContext context) {
        // tag::list[]
        Settlements settlements = context.getBean(Settlements.class);   // declared by the starter

        CallFilter filter = CallFilter.all().tool("open_ticket").olderThan(Duration.ofMinutes(30)).limit(20);
        while (filter != null) {
            Settlements.Page page = settlements.awaitingHuman(filter);
            for (CallRecord call : page.calls()) {
                LedgerEntry row = call.entry();
                System.out.printf("%s %s run=%s user=%s attempts=%d age=%s error=%s arguments=%s%n", row.key(),
                        row.tool(), row.runId(), row.userId(), row.reconcileAttempts(), call.age(), row.error(),
                        row.arguments());
            }
            filter = page.next();   // null after the last page
        }
        // end::list[]
    }

    void settleSucceeded(Settlements settlements, String keyFromTheList) {
        // tag::settle[]
        IdempotencyKey key = new IdempotencyKey(keyFromTheList);

        // The help desk has the ticket: the call took effect, and a repeat replays this result, the tool's Ticket.
        String ticket = """
                {"id": "T-1042", "accountName": "Acme", "issue": "pump noise", "reference": "atlas-3f2a9c1e7b5d4a60"}""";
        settlements.settleSucceeded(key, ticket, "ops-anna", "ticket T-1042 is in the help desk");
        // end::settle[]
    }

    void settleFailed(Settlements settlements, IdempotencyKey key) {
        // tag::settle[]

        // Or it has none: the call did not take effect, and a repeat is told so, with this reason.
        settlements.settleFailed(key, "ops-anna", "No ticket was opened. Ask the user whether to open it again.");
        // end::settle[]
    }

    void retry(Settlements settlements, IdempotencyKey key) {
        // tag::settle[]

        // Or the help desk was down and is back: the reconciler asks the tool's reconcile method once more.
        settlements.retry(key, "ops-anna", "the help desk is back");
        // end::settle[]
    }

}
