package io.idempotency.docs;

import java.time.Duration;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Settlements;

import org.springframework.context.ApplicationContext;

/** docs/operating.md: the calls that wait for a human, listed and settled by an operator. */
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

    void settle(Settlements settlements, String keyFromTheList) {
        // tag::settle[]
        IdempotencyKey key = new IdempotencyKey(keyFromTheList);

        // The help desk has the ticket: the call took effect, and a repeat replays this result.
        settlements.settleSucceeded(key, "{\"ticketId\":\"T-1042\"}", "ops-anna", "ticket T-1042 is in the help desk");

        // Or it has none: the call did not take effect, and a repeat is told so, with this reason.
        settlements.settleFailed(key, "ops-anna", "No ticket was opened. Ask the user whether to open it again.");

        // Or the help desk was down and is back: the reconciler asks the tool's reconcile method once more.
        settlements.retry(key, "ops-anna", "the help desk is back");
        // end::settle[]
    }

}
