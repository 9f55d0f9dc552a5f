package io.idempotency.autoconfigure;

import java.time.LocalDate;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;

import org.springframework.jdbc.core.JdbcTemplate;

/** A tool whose effect is a row in a real table. */
public class QuoteTool {

	public record QuoteRequest(String accountName, String sku, int quantity, LocalDate deliverBy, String note) {
	}

	private final JdbcTemplate jdbc;

	public QuoteTool(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
		jdbc.execute("CREATE TABLE IF NOT EXISTS quotes (id BIGINT AUTO_INCREMENT PRIMARY KEY, account_name VARCHAR(200))");
	}

	@IdempotentTool(name = "draft_quote", reconcile = "findQuote")
	public String draftQuote(QuoteRequest request) {
		this.jdbc.update("INSERT INTO quotes (account_name) VALUES (?)", request.accountName());
		return "quote for " + request.accountName();
	}

	Reconciliation<String> findQuote(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	public int quotes() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM quotes", Integer.class);
	}

}
