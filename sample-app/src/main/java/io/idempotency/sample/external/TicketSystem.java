package io.idempotency.sample.external;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A ticket system with no idempotency support of its own, as most are: every {@code POST /tickets} opens a
 * ticket, so a request sent twice opens two. It lets a caller store a reference on a ticket and search by
 * it ({@code GET /tickets?reference=...}), which is all the tool needs to check before it creates and to
 * answer "did this happen?" later.
 */
public class TicketSystem extends LoopbackService {

	public record Ticket(String id, String accountName, String issue, String reference) {
	}

	private final JdbcTemplate jdbc;

	public TicketSystem(JdbcTemplate jdbc, int port) {
		super("ticket system", port);
		this.jdbc = jdbc;
	}

	@Override
	protected void handle(HttpExchange exchange, Fault fault) throws IOException {
		String method = exchange.getRequestMethod();
		if (!exchange.getRequestURI().getPath().equals("/tickets")) {
			respond(exchange, 404, "{\"error\":\"no such resource\"}");
		}
		else if (method.equals("GET")) {
			String reference = query(exchange, "reference");
			respond(exchange, 200, JSON.writeValueAsString((reference != null) ? find(reference) : tickets()));
		}
		else if (method.equals("POST")) {
			if (fault == Fault.FAIL_BEFORE_EFFECT) {
				respond(exchange, 429, "{\"error\":\"the ticket system takes no more requests now: nothing was done\"}");
				return;
			}
			Map<?, ?> request = JSON.readValue(body(exchange), Map.class);
			Ticket ticket = create(String.valueOf(request.get("accountName")), String.valueOf(request.get("issue")),
					(String) request.get("reference"));
			delayAnswer(fault);
			respond(exchange, 201, JSON.writeValueAsString(ticket));
		}
		else {
			respond(exchange, 405, "{\"error\":\"method not allowed\"}");
		}
	}

	private Ticket create(String accountName, String issue, String reference) {
		long number = this.jdbc.queryForObject(
				"INSERT INTO ext_tickets (account_name, issue, reference) VALUES (?, ?, ?) RETURNING id", Long.class,
				accountName, issue, reference);
		return new Ticket("T-" + (1000 + number), accountName, issue, reference);
	}

	/** The tickets that carry a reference. */
	public List<Ticket> find(String reference) {
		return this.jdbc.query("SELECT id, account_name, issue, reference FROM ext_tickets WHERE reference = ? ORDER BY id",
				(row, n) -> new Ticket("T-" + (1000 + row.getLong(1)), row.getString(2), row.getString(3), row.getString(4)),
				reference);
	}

	/** Every ticket, oldest first. */
	public List<Ticket> tickets() {
		return this.jdbc.query("SELECT id, account_name, issue, reference FROM ext_tickets ORDER BY id",
				(row, n) -> new Ticket("T-" + (1000 + row.getLong(1)), row.getString(2), row.getString(3), row.getString(4)));
	}

}
