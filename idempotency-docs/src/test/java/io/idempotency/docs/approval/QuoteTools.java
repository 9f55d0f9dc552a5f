package io.idempotency.docs.approval;

import io.idempotency.Approval;
import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;

// The approval page's tool, as docs/approvals.md shows it. ApprovalFlowTest runs it.
// tag::tool[]
@Component
class QuoteTools {

    private final QuoteDesk quotes;

    QuoteTools(QuoteDesk quotes) {
        this.quotes = quotes;
    }

    @Tool(name = "send_quote", description = "Send a quote to a customer")
    @IdempotentTool(reconcile = "findQuote", approval = "quoteApproval")
    public QuoteDesk.Quote sendQuote(String customer, int quantity) {
        String reference = IdempotentInvocation.current().key().externalReference("quote");
        return quotes.send(customer, quantity, reference);
    }

    // Asked before each call is claimed: a quote over 1,000 units waits for a person's approval.
    Approval quoteApproval(int quantity) {
        return (quantity > 1000) ? Approval.required("a quote over 1,000 units: " + quantity)
                : Approval.notRequired();
    }

    Reconciliation<QuoteDesk.Quote> findQuote(IdempotencyKey key) {
        return Reconciliation.of(quotes.findByReference(key.externalReference("quote")));
    }
}
// end::tool[]
