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
 * The statements of approvals: the calls that wait for a person's approval as an operator reads them, and the
 * decisions on them. Each decision, and each expiry, is one conditional {@code UPDATE} that holds only while the
 * call still waits: of two at once, one writes and the other finds nothing to write.
 */
final class ApprovalStatements implements ApprovalQueue {

	/** The ledger's columns, then why approval is needed, who decided, when and why, and the database's now. */
	private final String recordColumns;

	private final String awaiting;

	private final String findRecord;

	private final String findRecordById;

	private final String approve;

	private final String reject;

	private final String oldestAwaiting;

	private final String expire;

	private final String countAwaiting;

	private static final int[] DECIDE_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };

	private final JdbcTemplate jdbc;

	private final LedgerDialect dialect;

	private final LedgerRows rows;

	private final OwnTransactions transactions;

	private final TableName table;

	private final CallStatements calls;

	ApprovalStatements(LedgerDatabase db, CallStatements calls) {
		this.calls = calls;
		this.jdbc = db.jdbc();
		this.dialect = db.dialect();
		this.rows = db.rows();
		this.transactions = db.transactions();
		this.table = db.table();
		String table = this.table.qualified();
		String now = this.dialect.now();
		this.recordColumns = LedgerStatements.COLUMNS + ", approval_reason, decided_by, decided_at, decision_reason, "
				+ now;
		String waiting = this.dialect.awaitingApproval();
		// Reads of decisions and claims other instances made, after the cluster's earlier commits on Galera.
		String read = db.sql().readPrefix();
		this.awaiting = read + "SELECT " + this.recordColumns + " FROM " + table + " WHERE " + waiting + " AND id > ?";
		this.findRecord = read + "SELECT " + this.recordColumns + " FROM " + table + " WHERE idempotency_key = ?";
		this.findRecordById = read + "SELECT " + this.recordColumns + " FROM " + table + " WHERE id = ?";
		String decided = ", decided_by = ?, decided_at = " + now + ", decision_reason = ?";
		this.approve = "UPDATE " + table + " SET status = 'approved'" + decided
				+ " WHERE idempotency_key = ? AND status = 'awaiting'";
		// A rejected call is finished, as an expired one: retention counts from then, as from a settled call's
		// outcome. An approved one finishes when it executes.
		this.reject = "UPDATE " + table + " SET status = 'rejected', finished_at = " + now + decided
				+ " WHERE idempotency_key = ? AND status = 'awaiting'";
		this.oldestAwaiting = "SELECT id FROM " + table + " WHERE " + waiting + " AND "
				+ this.dialect.awaitingApprovalSince() + " < " + this.dialect.nowMinusMicros() + " ORDER BY "
				+ this.dialect.awaitingApprovalSince() + " LIMIT ?";
		this.expire = "UPDATE " + table + " SET status = 'expired', decided_at = " + now + ", finished_at = " + now
				+ ", decision_reason = ? WHERE id = ? AND status = 'awaiting'";
		this.countAwaiting = "SELECT COUNT(*) FROM " + table + " WHERE " + waiting;
	}

	@Override
	public List<ApprovalRequest> awaiting(String tool, long afterId, int limit) {
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		StringBuilder sql = new StringBuilder(this.awaiting);
		List<Object> parameters = new ArrayList<>(List.of(afterId));
		if (tool != null) {
			sql.append(" AND tool = ?");
			parameters.add(tool);
		}
		sql.append(" ORDER BY id LIMIT ?");
		parameters.add(limit);
		return withApprovalColumns(() -> this.transactions
			.committed(() -> this.jdbc.query(sql.toString(), this::request, parameters.toArray())));
	}

	@Override
	public Optional<ApprovalRequest> find(IdempotencyKey key) {
		return withApprovalColumns(() -> this.transactions.committed(() -> this.jdbc
			.query(this.findRecord, this::request, key.value())
			.stream()
			.findFirst()));
	}

	@Override
	public boolean decide(IdempotencyKey key, boolean approved, String decidedBy, String reason) {
		Object[] values = { decidedBy, LedgerRows.truncate(reason), key.value() };
		String decision = approved ? this.approve : this.reject;
		return withApprovalColumns(() -> this.transactions
			.committedAgainAfterDeadlocks(() -> this.jdbc.update(decision, values, DECIDE_TYPES))) == 1;
	}

	@Override
	public List<ApprovalRequest> expire(Duration olderThan, String reason, int limit) {
		LedgerRows.requireNotNegative(olderThan, "olderThan");
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		return withApprovalColumns(() -> {
			List<Long> candidates = this.transactions.committed(() -> this.jdbc.queryForList(this.oldestAwaiting,
					Long.class, LedgerRows.micros(olderThan), limit));
			List<ApprovalRequest> expired = new ArrayList<>();
			for (long id : candidates) {
				// A decision made since the read wins: the write holds only while the call still waits.
				if (this.transactions.committedAgainAfterDeadlocks(
						() -> this.jdbc.update(this.expire, LedgerRows.truncate(reason), id)) == 1) {
					this.transactions.committed(() -> this.jdbc.query(this.findRecordById, this::request, id))
						.forEach(expired::add);
				}
			}
			return expired;
		});
	}

	@Override
	public long countAwaiting() {
		return withApprovalColumns(() -> {
			Long count = this.transactions.committed(() -> this.jdbc.queryForObject(this.countAwaiting, Long.class));
			return (count != null) ? count : 0L;
		});
	}

	@Override
	public long requested() {
		return this.calls.approvalsRequested();
	}

	private ApprovalRequest request(ResultSet row, int rowNumber) throws SQLException {
		LedgerEntry entry = this.rows.entry(row, rowNumber);
		Instant now = this.dialect.timestamp(row, 19);
		Duration age = Duration.between(entry.startedAt(), now);
		return new ApprovalRequest(entry, row.getString(15), age.isNegative() ? Duration.ZERO : age, row.getString(16),
				this.dialect.timestamp(row, 17), row.getString(18));
	}

	/**
	 * Runs a statement that needs the approval columns; on a table made before they existed, the error says
	 * what to run.
	 */
	private <T> T withApprovalColumns(Supplier<T> statement) {
		try {
			return statement.get();
		}
		catch (BadSqlGrammarException ex) {
			throw new IllegalStateException("The ledger table " + this.table + " could not be read or written for an"
					+ " approval; a table made before the ledger's migration 1.0.0.0.4 lacks its columns "
					+ LedgerSchema.APPROVAL_COLUMNS + ": apply "
					+ LedgerSchema.approvalsUpgradeLocation(this.dialect.platform()) + ", with the table's name in place"
					+ " of tool_audit (Flyway and Liquibase apply it with the ledger's migrations). The database said: "
					+ ex.getMostSpecificCause().getMessage(), ex);
		}
	}

}
