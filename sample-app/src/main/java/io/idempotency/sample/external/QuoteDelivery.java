package io.idempotency.sample.external;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An API that sends a quote to the customer and honours {@code Idempotency-Key}, as payment and messaging
 * APIs do: {@code POST /quotes/{id}/send} with a key it has seen answers with the first send and sends
 * nothing more. {@code GET /sends?idempotencyKey=...} says whether a send with that key happened.
 */
public class QuoteDelivery extends LoopbackService {

	private static final Pattern SEND = Pattern.compile("/quotes/(\\d+)/send");

	public record Send(String messageId, long quoteId, String idempotencyKey) {
	}

	private final JdbcTemplate jdbc;

	public QuoteDelivery(JdbcTemplate jdbc, int port) {
		super("quote delivery API", port);
		this.jdbc = jdbc;
	}

	@Override
	protected void handle(HttpExchange exchange, Fault fault) throws IOException {
		String path = exchange.getRequestURI().getPath();
		Matcher send = SEND.matcher(path);
		if (exchange.getRequestMethod().equals("POST") && send.matches()) {
			String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
			if (key == null || key.isBlank()) {
				respond(exchange, 400, "{\"error\":\"an Idempotency-Key header is required\"}");
				return;
			}
			if (fault == Fault.FAIL_BEFORE_EFFECT) {
				respond(exchange, 429, "{\"error\":\"the quote delivery API takes no more requests now: nothing was done\"}");
				return;
			}
			Optional<Send> earlier = find(key);
			if (earlier.isPresent()) {
				respond(exchange, 200, JSON.writeValueAsString(earlier.get()));
				return;
			}
			Send sent = send(Long.parseLong(send.group(1)), key);
			delayAnswer(fault);
			respond(exchange, 201, JSON.writeValueAsString(sent));
		}
		else if (exchange.getRequestMethod().equals("GET") && path.equals("/sends")) {
			String key = query(exchange, "idempotencyKey");
			if (key == null) {
				respond(exchange, 200, JSON.writeValueAsString(sends()));
				return;
			}
			Optional<Send> sent = find(key);
			respond(exchange, sent.isPresent() ? 200 : 404,
					sent.isPresent() ? JSON.writeValueAsString(sent.get()) : JSON.writeValueAsString(Map.of("error", "no send with this key")));
		}
		else {
			respond(exchange, 404, "{\"error\":\"no such resource\"}");
		}
	}

	private Send send(long quoteId, String key) {
		try {
			long number = this.jdbc.queryForObject(
					"INSERT INTO ext_sent_quotes (idempotency_key, quote_id) VALUES (?, ?) RETURNING id", Long.class, key,
					quoteId);
			return new Send("M-" + (5000 + number), quoteId, key);
		}
		catch (DuplicateKeyException ex) {
			// The same key at the same moment: the first send stands.
			return find(key).orElseThrow();
		}
	}

	public Optional<Send> find(String key) {
		return this.jdbc
			.query("SELECT id, quote_id, idempotency_key FROM ext_sent_quotes WHERE idempotency_key = ?",
					(row, n) -> new Send("M-" + (5000 + row.getLong(1)), row.getLong(2), row.getString(3)), key)
			.stream()
			.findFirst();
	}

	/** Every send, oldest first. */
	public List<Send> sends() {
		return this.jdbc.query("SELECT id, quote_id, idempotency_key FROM ext_sent_quotes ORDER BY id",
				(row, n) -> new Send("M-" + (5000 + row.getLong(1)), row.getLong(2), row.getString(3)));
	}

}
