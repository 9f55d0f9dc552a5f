package io.idempotency.ledger;

import java.time.Duration;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Deletes the settled rows settled longer ago than a retention, in batches of bounded size, each in a
 * transaction of the ledger's own; unsettled rows are never deleted. Once rows are gone, the successes kept in
 * memory are forgotten: their keys may be free again.
 */
final class Retention {

	private final JdbcTemplate jdbc;

	private final LedgerStatements sql;

	private final OwnTransactions transactions;

	private final SettledOutcomes settled;

	Retention(LedgerDatabase database, SettledOutcomes settled) {
		this.jdbc = database.jdbc();
		this.sql = database.sql();
		this.transactions = database.transactions();
		this.settled = settled;
	}

	/** Deletes the rows settled longer ago than the retention; how many were deleted. */
	long purgeSettled(Duration retention, int batchSize) {
		LedgerRows.requireNotNegative(retention, "retention");
		if (batchSize < 1) {
			throw new IllegalArgumentException("batchSize must be at least 1, but was " + batchSize);
		}
		long total = 0;
		int deleted;
		do {
			deleted = this.transactions.committed(() -> this.jdbc.update(this.sql.purgeSettled, LedgerRows.micros(retention),
					LedgerRows.micros(retention), batchSize));
			total += deleted;
		}
		while (deleted == batchSize);
		if (total > 0) {
			// Some of the rows kept in memory may be gone: their keys are free again.
			this.settled.clear();
		}
		return total;
	}

}
