package io.idempotency.sample.tools;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Quotes live in this application's own database, the ledger's: {@code draft_quote} is transactional, so
 * its claim, the quote and its outcome commit together or not at all, and it needs no reconcile method.
 */
@Component
public class QuoteTools {

	public record Quote(long id, String accountName, String sku, int quantity, BigDecimal total) {
	}

	private static final BigDecimal UNIT_PRICE = new BigDecimal("18.40");

	private final JdbcTemplate jdbc;

	QuoteTools(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@Tool(name = "draft_quote", description = "Draft a quote for an account: a SKU and a quantity")
	@IdempotentTool(transactional = true)
	public Quote draftQuote(String accountName, String sku, int quantity) {
		BigDecimal total = UNIT_PRICE.multiply(BigDecimal.valueOf(quantity));
		long id = this.jdbc.queryForObject(
				"INSERT INTO quotes (reference, account_name, sku, quantity, total) VALUES (?, ?, ?, ?, ?) RETURNING id",
				Long.class, reference(), accountName.trim(), sku.trim(), quantity, total);
		return new Quote(id, accountName.trim(), sku.trim(), quantity, total);
	}

	/** Every quote, oldest first. */
	public List<Quote> quotes() {
		return this.jdbc.query("SELECT id, account_name, sku, quantity, total FROM quotes ORDER BY id",
				(row, n) -> new Quote(row.getLong(1), row.getString(2), row.getString(3), row.getInt(4), row.getBigDecimal(5)));
	}

	/** The quote of this id, if there is one. */
	public Optional<Quote> find(long id) {
		return this.jdbc.query("SELECT id, account_name, sku, quantity, total FROM quotes WHERE id = ?",
				(row, n) -> new Quote(row.getLong(1), row.getString(2), row.getString(3), row.getInt(4), row.getBigDecimal(5)),
				id).stream().findFirst();
	}

	/** The call's key as a reference; with idempotency off there is no key, so a new one each call. */
	private static String reference() {
		return IdempotentInvocation.find()
			.map((call) -> call.key().externalReference("quote"))
			.orElseGet(() -> "quote-" + UUID.randomUUID());
	}

}
