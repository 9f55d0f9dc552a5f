package io.idempotency.sample;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * Stands for an external ticket system without idempotency support of its own: it only lets a caller
 * search by a reference it stored on the ticket.
 */
@Component
public class TicketSystem {

	public record Ticket(String id, String accountName, String issue, String reference) {
	}

	private final Map<String, Ticket> byReference = new ConcurrentHashMap<>();

	private final AtomicInteger numbers = new AtomicInteger(1000);

	public Ticket create(String accountName, String issue, String reference) {
		Ticket ticket = new Ticket("T-" + this.numbers.incrementAndGet(), accountName, issue, reference);
		this.byReference.put(reference, ticket);
		return ticket;
	}

	public Optional<Ticket> findByReference(String reference) {
		return Optional.ofNullable(this.byReference.get(reference));
	}

	public List<Ticket> tickets() {
		return List.copyOf(this.byReference.values());
	}

}
