package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;

/** What an operator, health and the endpoint read of the ledger: counts, rates and the oldest open calls. */
final class LedgerQueries {

	private final JdbcTemplate jdbc;

	private final LedgerStatements sql;

	private final LedgerRows rows;

	LedgerQueries(LedgerDatabase database) {
		this.jdbc = database.jdbc();
		this.sql = database.sql();
		this.rows = database.rows();
	}

	/**
	 * Executions and replays over a window ending now, across every instance that writes this table, as
	 * far as replay counts have been flushed.
	 */
	ReplayStatistics replayStatistics(Duration window) {
		LedgerRows.requirePositive(window, "window");
		return this.jdbc.queryForObject(this.sql.replayStatistics,
				(row, n) -> new ReplayStatistics(window, row.getLong(1), row.getLong(2)), LedgerRows.micros(window));
	}

	/**
	 * How many rows of these tools have been attempting or unknown since longer ago than the given time: for
	 * tools that no reconciler resolves (transactional tools, whose claim commits only with their outcome),
	 * such a row is a claim committed without its transaction and waits for a person.
	 */
	long countUnsettledOf(Set<String> tools, Duration olderThan) {
		LedgerRows.requireNotNegative(olderThan, "olderThan");
		if (tools.isEmpty()) {
			return 0;
		}
		List<Object> parameters = new ArrayList<>(tools);
		parameters.add(0, LedgerRows.micros(olderThan));
		return this.jdbc.queryForObject(this.sql.countUnsettledOf(tools.size()), Long.class, parameters.toArray());
	}

	/** How many rows there are of each status (a scan of the table: for an operator's view, not a hot path). */
	Map<LedgerStatus, Long> countByStatus() {
		Map<LedgerStatus, Long> counts = new EnumMap<>(LedgerStatus.class);
		for (LedgerStatus status : LedgerStatus.values()) {
			counts.put(status, 0L);
		}
		this.jdbc.query(this.sql.countByStatus,
				(RowCallbackHandler) (row) -> counts.put(LedgerStatus.ofColumnValue(row.getString(1)), row.getLong(2)));
		return counts;
	}

	/** The oldest rows still attempting or unknown, oldest first. */
	List<LedgerEntry> oldestUnsettled(int limit) {
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		return this.jdbc.query(this.sql.oldestUnsettled, this.rows::entry, limit);
	}

	/**
	 * How many unsettled rows the reconciler has tried at least this many times: with the reconciler's
	 * {@code maxAttempts}, the rows that wait for a human.
	 */
	long countAwaitingHuman(int attempts) {
		return this.jdbc.queryForObject(this.sql.countAwaitingHuman, Long.class, attempts);
	}

}
