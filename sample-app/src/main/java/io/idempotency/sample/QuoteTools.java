package io.idempotency.sample;

import java.util.List;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.annotation.Tool;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Quotes live in the application's own database, the same one as the ledger: so {@code draft_quote} is
 * transactional (the claim, the quote and the outcome commit together) and needs no reconcile method.
 */
@Component
public class QuoteTools {

	public record Quote(long id, String accountName, String sku, int quantity) {
	}

	private final JdbcTemplate jdbc;

	QuoteTools(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@Tool(description = "Draft a quote for an account")
	@IdempotentTool(name = "draft_quote", transactional = true)
	public Quote draftQuote(String accountName, String sku, int quantity, ToolContext toolContext) {
		String reference = IdempotentInvocation.current().key().externalReference("quote");
		this.jdbc.update("INSERT INTO quotes (reference, account_name, sku, quantity) VALUES (?, ?, ?, ?)", reference,
				accountName, sku, quantity);
		return this.jdbc.queryForObject("SELECT id, account_name, sku, quantity FROM quotes WHERE reference = ?",
				(row, n) -> new Quote(row.getLong(1), row.getString(2), row.getString(3), row.getInt(4)), reference);
	}

	@Tool(description = "Check the stock of a product")
	public int checkInventory(String sku) {
		// A read: safe to repeat, so not an idempotent tool.
		return sku.endsWith("4411") ? 1200 : 40;
	}

	public List<Quote> quotes() {
		return this.jdbc.query("SELECT id, account_name, sku, quantity FROM quotes ORDER BY id",
				(row, n) -> new Quote(row.getLong(1), row.getString(2), row.getString(3), row.getInt(4)));
	}

}
