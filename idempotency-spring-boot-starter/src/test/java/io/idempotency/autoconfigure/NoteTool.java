package io.idempotency.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.IdempotentTool;

import org.springframework.jdbc.core.JdbcTemplate;

/** A transactional tool whose effect is a row in a table of the ledger's database. */
public class NoteTool {

	private final AtomicInteger attempts = new AtomicInteger();

	private final JdbcTemplate jdbc;

	private final String table;

	public NoteTool(JdbcTemplate jdbc, String table) {
		this.jdbc = jdbc;
		this.table = table;
	}

	@IdempotentTool(name = "record_note", transactional = true)
	public String recordNote(String text, boolean fail) {
		this.attempts.incrementAndGet();
		this.jdbc.update("INSERT INTO " + this.table + " (text) VALUES (?)", text);
		if (fail) {
			throw new IllegalStateException("failed after the write");
		}
		return "noted " + text;
	}

	public int attempts() {
		return this.attempts.get();
	}

	public int notes() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + this.table, Integer.class);
	}

}
