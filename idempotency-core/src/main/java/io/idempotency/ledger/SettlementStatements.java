package io.idempotency.ledger;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.idempotency.key.IdempotencyKey;

import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The statements of settlement by hand: the unsettled rows as an operator reads them, and the writes that
 * settle a row waiting for a human or send it back to the reconciler. Each write is one conditional
 * {@code UPDATE} that holds only while the row still waits: of two concurrent settlements, or a settlement and
 * a reconciler's lease, one writes and the other finds nothing to write.
 */
final class SettlementStatements {

	/** The ledger's columns, then who settled, when and why, whether a lease is live, and the database's now. */
	private final String recordColumns;

	/** A row that waits for a human after as many attempts as the one parameter says. */
	private final String waiting;

	private final String findRecord;

	private final String unsettled;

	final String settle;

	final String sendBack;

	private static final int[] SETTLE_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR,
			Types.VARCHAR, Types.VARCHAR, Types.INTEGER };

	private static final int[] SEND_BACK_TYPES = { Types.INTEGER, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR,
			Types.INTEGER };

	private final JdbcTemplate jdbc;

	private final LedgerDialect dialect;

	private final LedgerRows rows;

	private final OwnTransactions transactions;

	private final TableName table;

	SettlementStatements(JdbcTemplate jdbc, LedgerDialect dialect, TableName tableName, LedgerRows rows,
			OwnTransactions transactions) {
		this.jdbc = jdbc;
		this.dialect = dialect;
		this.rows = rows;
		this.transactions = transactions;
		this.table = tableName;
		String table = tableName.qualified();
		String now = dialect.now();
		this.recordColumns = LedgerStatements.COLUMNS + ", settled_by, settled_at, settle_reason,"
				+ " CASE WHEN reconcile_owner IS NOT NULL AND reconcile_after > " + now + " THEN 1 ELSE 0 END, " + now;
		String waitingForHuman = " AND reconcile_attempts >= ? AND (reconcile_owner IS NULL OR reconcile_after < "
				+ now + ")";
		this.waiting = dialect.unsettled() + waitingForHuman;
		// The writes find the row by its key, and check its status without naming those of PostgreSQL's partial
		// index, so that no planner reads that index for them: LedgerStatements.STILL_ATTEMPTING says why.
		String stillWaiting = LedgerStatements.STILL_UNSETTLED + waitingForHuman;
		this.findRecord = "SELECT " + this.recordColumns + " FROM " + table + " WHERE idempotency_key = ?";
		this.unsettled = "SELECT " + this.recordColumns + " FROM " + table + " WHERE " + dialect.unsettled()
				+ " AND started_at <= " + dialect.nowMinusMicros() + " AND id > ?";
		this.settle = "UPDATE " + table + " SET status = ?, result = " + dialect.json() + ", error = ?, finished_at = "
				+ now + ", reconcile_owner = NULL, reconcile_after = NULL, settled_by = ?, settled_at = " + now
				+ ", settle_reason = ? WHERE idempotency_key = ? AND " + stillWaiting;
		this.sendBack = "UPDATE " + table + " SET reconcile_attempts = ?, reconcile_owner = NULL, reconcile_after = NULL,"
				+ " settled_by = ?, settled_at = " + now + ", settle_reason = ? WHERE idempotency_key = ? AND "
				+ stillWaiting;
	}

	List<CallRecord> unsettled(String tool, Duration olderThan, int awaitingHumanAfter, long afterId, int limit) {
		LedgerRows.requireNotNegative(olderThan, "olderThan");
		if (olderThan.compareTo(SettlementQueue.MAX_OLDER_THAN) > 0) {
			throw new IllegalArgumentException("olderThan must be at most " + SettlementQueue.MAX_OLDER_THAN.toDays()
					+ " days, but was " + olderThan);
		}
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		StringBuilder sql = new StringBuilder(this.unsettled);
		List<Object> parameters = new ArrayList<>(List.of(LedgerRows.micros(olderThan), afterId));
		if (tool != null) {
			sql.append(" AND tool = ?");
			parameters.add(tool);
		}
		if (awaitingHumanAfter > 0) {
			sql.append(" AND ").append(this.waiting);
			parameters.add(awaitingHumanAfter);
		}
		sql.append(" ORDER BY id LIMIT ?");
		parameters.add(limit);
		return withSettlementColumns(() -> this.transactions
			.committed(() -> this.jdbc.query(sql.toString(), this::callRecord, parameters.toArray())));
	}

	Optional<CallRecord> record(IdempotencyKey key) {
		return withSettlementColumns(() -> this.transactions
			.committed(() -> this.jdbc.query(this.findRecord, this::callRecord, key.value()).stream().findFirst()));
	}

	boolean settle(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error, int awaitingHumanAfter,
			String settledBy, String reason) {
		Object[] values = { outcome.columnValue(), resultJson, LedgerRows.truncate(error), settledBy,
				LedgerRows.truncate(reason), key.value(), awaitingHumanAfter };
		return written(() -> this.jdbc.update(this.settle, values, SETTLE_TYPES));
	}

	boolean sendBack(IdempotencyKey key, int awaitingHumanAfter, int attempts, String settledBy, String reason) {
		Object[] values = { attempts, settledBy, LedgerRows.truncate(reason), key.value(), awaitingHumanAfter };
		return written(() -> this.jdbc.update(this.sendBack, values, SEND_BACK_TYPES));
	}

	/**
	 * Whether the conditional update wrote the row. One that lost a deadlock (several operators writing the row
	 * at once) is made again: then it writes, or finds the row settled by the one it lost to.
	 */
	private boolean written(Supplier<Integer> update) {
		return withSettlementColumns(() -> this.transactions.committedAgainAfterDeadlocks(update)) == 1;
	}

	private CallRecord callRecord(ResultSet row, int rowNumber) throws SQLException {
		LedgerEntry entry = this.rows.entry(row, rowNumber);
		Instant now = this.dialect.timestamp(row, 19);
		Duration age = Duration.between(entry.startedAt(), now);
		return new CallRecord(entry, age.isNegative() ? Duration.ZERO : age, row.getInt(18) == 1, row.getString(15),
				this.dialect.timestamp(row, 16), row.getString(17));
	}

	/**
	 * Runs a statement that needs the settlement columns; on a table made before they existed, the error says
	 * what to run.
	 */
	private <T> T withSettlementColumns(Supplier<T> statement) {
		try {
			return statement.get();
		}
		catch (BadSqlGrammarException ex) {
			throw new IllegalStateException("The ledger table " + this.table + " could not be read or written for a"
					+ " settlement by hand; a table made before the ledger's migration 1.0.0.0.2 lacks its columns "
					+ LedgerSchema.SETTLEMENT_COLUMNS + ": apply " + LedgerSchema.upgradeLocation(this.dialect.platform())
					+ ", with the table's name in place of tool_audit (Flyway and Liquibase apply it with the ledger's"
					+ " migrations). The database said: " + ex.getMostSpecificCause().getMessage(), ex);
		}
	}

}
