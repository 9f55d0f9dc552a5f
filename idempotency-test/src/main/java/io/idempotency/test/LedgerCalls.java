package io.idempotency.test;

import java.util.List;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;

import org.springframework.jdbc.core.JdbcTemplate;

/** The calls a ledger holds, in claim order, each with the repeats answered from it. */
final class LedgerCalls {

	private LedgerCalls() {
	}

	static List<LedgerEntry> of(CallLedger ledger) {
		if (ledger instanceof InMemoryLedger memory) {
			return memory.entries();
		}
		if (ledger instanceof JdbcLedger jdbc) {
			// Outcomes written behind their callers, and repeats, counted in memory, are written in batches: write
			// them before reading the rows.
			jdbc.writePendingOutcomes();
			jdbc.flushReplayCounts();
			List<String> keys = new JdbcTemplate(jdbc.dataSource())
				.queryForList("SELECT idempotency_key FROM " + jdbc.tableName() + " ORDER BY id", String.class);
			return keys.stream().map((key) -> jdbc.find(new IdempotencyKey(key))).flatMap((row) -> row.stream()).toList();
		}
		throw new IllegalArgumentException("The ledger assertions read an InMemoryLedger or a JdbcLedger, not a "
				+ ((ledger != null) ? ledger.getClass().getName() : "null ledger"));
	}

}
