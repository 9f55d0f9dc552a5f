package io.idempotency.sample;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.sample.TicketSystem.Ticket;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;

import org.springframework.stereotype.Component;

/**
 * Tickets live in another system, so {@code open_ticket} claims first, derives a reference from its key,
 * and can answer "did this happen?" by looking that reference up.
 */
@Component
public class TicketTools {

	private final TicketSystem tickets;

	TicketTools(TicketSystem tickets) {
		this.tickets = tickets;
	}

	@Tool(description = "Open a support ticket for an account")
	@IdempotentTool(name = "open_ticket", reconcile = "findTicket")
	public ToolResult<Ticket> openTicket(String accountName, String issue, ToolContext toolContext) {
		String reference = IdempotentInvocation.current().key().externalReference("atlas");
		// Check, then create: a race of milliseconds, against retries seconds apart.
		Ticket ticket = this.tickets.findByReference(reference)
			.orElseGet(() -> this.tickets.create(accountName, issue, reference));
		return ToolResult.of(ticket);
	}

	Reconciliation<Ticket> findTicket(IdempotencyKey key) {
		return Reconciliation.of(this.tickets.findByReference(key.externalReference("atlas")));
	}

}
