package io.idempotency.sample.tools;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.sample.external.TicketSystem.Ticket;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Tickets live in an external system that opens a ticket for every request it receives. So
 * {@code open_ticket} stores a reference derived from the call's key on the ticket, checks for it before
 * creating, and answers "did this happen?" for a call whose outcome is unknown by searching for it.
 */
@Component
public class TicketTools {

	private final RestClient ticketSystem;

	TicketTools(ExternalClients clients) {
		this.ticketSystem = clients.ticketSystem();
	}

	/**
	 * Keyed on the account and the issue, which name the ticket: a model that repeats the call rephrasing its
	 * description opens no second ticket, and is told the new description was not applied. A twin of a call
	 * still running waits up to two seconds for its ticket.
	 */
	@Tool(name = "open_ticket", description = "Open a support ticket for an account about one issue, with an"
			+ " optional description")
	@IdempotentTool(reconcile = "findTicket", keyArguments = { "accountName", "issue" }, waitForRunning = "2s")
	public Ticket openTicket(String accountName, String issue, String description) {
		String reference = reference();
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("accountName", accountName.trim());
		body.put("issue", issue.trim());
		body.put("reference", reference);
		if (description != null) {
			body.put("description", description.trim());
		}
		// Check, then create: closes the window of a retry seconds later; the claim closes the rest.
		return find(reference).orElseGet(() -> this.ticketSystem.post()
			.uri("/tickets")
			.body(body)
			.retrieve()
			.body(Ticket.class));
	}

	/** Did the ticket of this call get opened? Asked by the reconciler when the outcome is unknown. */
	Reconciliation<Ticket> findTicket(IdempotencyKey key) {
		return Reconciliation.of(find(key.externalReference("atlas")));
	}

	private Optional<Ticket> find(String reference) {
		Ticket[] found = this.ticketSystem.get()
			.uri("/tickets?reference={reference}", reference)
			.retrieve()
			.body(Ticket[].class);
		return (found != null) ? Arrays.stream(found).findFirst() : Optional.empty();
	}

	/** The call's key as a reference; with idempotency off there is no key, so a new one each call. */
	private static String reference() {
		return IdempotentInvocation.find()
			.map((call) -> call.key().externalReference("atlas"))
			.orElseGet(() -> "atlas-" + UUID.randomUUID());
	}

}
