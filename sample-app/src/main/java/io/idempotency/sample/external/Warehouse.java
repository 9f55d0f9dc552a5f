package io.idempotency.sample.external;

import java.io.IOException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.sun.net.httpserver.HttpExchange;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * A warehouse that reserves stock for an account, with no idempotency support of its own: every
 * {@code POST /reservations} reserves. A caller may store a reference on a reservation, but the warehouse's
 * search ({@code GET /reservations?reference=...}) is fed by an hourly export: it lists a reservation only
 * {@value #SEARCH_LAG_HOURS} hour after it is made. A reservation missing from it may be missing, or not there
 * yet: whoever asks it soon after a call cannot tell which.
 */
public class Warehouse extends LoopbackService {

	/** How long after a reservation is made the warehouse's search lists it. */
	public static final int SEARCH_LAG_HOURS = 1;

	public record Reservation(String id, String accountName, String sku, int quantity, String reference) {
	}

	private static final RowMapper<Reservation> RESERVATION = (row, n) -> new Reservation("R-" + (2000 + row.getLong(1)),
			row.getString(2), row.getString(3), row.getInt(4), row.getString(5));

	private static final String COLUMNS = "SELECT id, account_name, sku, quantity, reference FROM ext_reservations";

	private final JdbcTemplate jdbc;

	private final Clock clock;

	public Warehouse(JdbcTemplate jdbc, Clock clock, int port) {
		super("warehouse", port);
		this.jdbc = jdbc;
		this.clock = clock;
	}

	@Override
	protected void handle(HttpExchange exchange, Fault fault) throws IOException {
		String method = exchange.getRequestMethod();
		if (!exchange.getRequestURI().getPath().equals("/reservations")) {
			respond(exchange, 404, "{\"error\":\"no such resource\"}");
		}
		else if (method.equals("GET")) {
			String reference = query(exchange, "reference");
			respond(exchange, 200, JSON.writeValueAsString((reference != null) ? search(reference) : reservations()));
		}
		else if (method.equals("POST")) {
			if (fault == Fault.FAIL_BEFORE_EFFECT) {
				respond(exchange, 429, "{\"error\":\"the warehouse takes no more requests now: nothing was reserved\"}");
				return;
			}
			Map<?, ?> request = JSON.readValue(body(exchange), Map.class);
			Reservation reservation = reserve(String.valueOf(request.get("accountName")),
					String.valueOf(request.get("sku")), ((Number) request.get("quantity")).intValue(),
					(String) request.get("reference"));
			delayAnswer(fault);
			respond(exchange, 201, JSON.writeValueAsString(reservation));
		}
		else {
			respond(exchange, 405, "{\"error\":\"method not allowed\"}");
		}
	}

	private Reservation reserve(String accountName, String sku, int quantity, String reference) {
		long number = this.jdbc.queryForObject(
				"INSERT INTO ext_reservations (account_name, sku, quantity, reference, created_at) VALUES (?, ?, ?, ?, ?)"
						+ " RETURNING id",
				Long.class, accountName, sku, quantity, reference, Timestamp.from(this.clock.instant()));
		return new Reservation("R-" + (2000 + number), accountName, sku, quantity, reference);
	}

	/** What the warehouse's search answers: the reservations that carry a reference, made an hour ago or more. */
	private List<Reservation> search(String reference) {
		Timestamp exported = Timestamp.from(this.clock.instant().minus(Duration.ofHours(SEARCH_LAG_HOURS)));
		return this.jdbc.query(COLUMNS + " WHERE reference = ? AND created_at <= ? ORDER BY id", RESERVATION, reference,
				exported);
	}

	/** The reservations that carry a reference, as the warehouse's own screen shows them: at once. */
	public List<Reservation> withReference(String reference) {
		return this.jdbc.query(COLUMNS + " WHERE reference = ? ORDER BY id", RESERVATION, reference);
	}

	/** Every reservation, oldest first. */
	public List<Reservation> reservations() {
		return this.jdbc.query(COLUMNS + " ORDER BY id", RESERVATION);
	}

}
