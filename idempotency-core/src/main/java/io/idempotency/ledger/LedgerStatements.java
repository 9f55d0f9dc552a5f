package io.idempotency.ledger;

/** Every statement the ledger runs, written once for a table and a dialect. */
final class LedgerStatements {

	private static final String COLUMNS = "id, idempotency_key, run_id, user_id, tool, arguments, status, result, error,"
			+ " started_at, finished_at, replay_count, reconcile_attempts, reconcile_owner";

	private static final String UNSETTLED = "status IN ('attempting', 'unknown')";

	private static final String SETTLED = "status IN ('succeeded', 'failed')";

	final String claim;

	final String findByKey;

	final String recordOutcome;

	final String addReplays;

	final String findStale;

	final String lease;

	final String resolve;

	final String postpone;

	final String purgeSettled;

	final String replayStatistics;

	final String countByStatus;

	final String oldestUnsettled;

	final String countAwaitingHuman;

	private final String heartbeatPrefix;

	private final LedgerDialect dialect;

	private final String table;

	LedgerStatements(LedgerDialect dialect, TableName tableName) {
		this.dialect = dialect;
		this.table = tableName.qualified();
		String table = tableName.qualified();
		String now = dialect.now();
		this.claim = "INSERT INTO " + table + " (idempotency_key, run_id, user_id, tool, arguments, status, started_at)"
				+ " VALUES (?, ?, ?, ?, " + dialect.json() + ", 'attempting', " + now + ")"
				+ dialect.claimConflictClause();
		this.findByKey = "SELECT " + COLUMNS + " FROM " + table + " WHERE idempotency_key = ?";
		// Only the attempt holding the claim records its outcome: it expects the row still attempting.
		this.recordOutcome = "UPDATE " + table + " SET status = ?, result = " + dialect.json() + ", error = ?,"
				+ " finished_at = " + now + " WHERE idempotency_key = ? AND status = 'attempting'";
		this.addReplays = "UPDATE " + table + " SET replay_count = replay_count + ?, last_replay_at = " + now
				+ " WHERE idempotency_key = ?";
		this.findStale = findStale(table, dialect, "");
		this.lease = "UPDATE " + table + " SET reconcile_owner = ?, reconcile_after = " + dialect.nowPlusMicros()
				+ ", reconcile_attempts = reconcile_attempts + 1 WHERE id = ?";
		this.resolve = "UPDATE " + table + " SET status = ?, result = " + dialect.json() + ", error = ?, finished_at = "
				+ now + ", reconcile_owner = NULL, reconcile_after = NULL WHERE id = ? AND reconcile_owner = ? AND "
				+ UNSETTLED;
		this.postpone = "UPDATE " + table + " SET reconcile_owner = NULL, reconcile_after = " + dialect.nowPlusMicros()
				+ " WHERE id = ? AND reconcile_owner = ? AND " + UNSETTLED;
		this.purgeSettled = dialect.purge(table, SETTLED + " AND started_at < " + dialect.nowMinusMicros());
		this.replayStatistics = "SELECT COUNT(*), COALESCE(SUM(replay_count), 0) FROM " + table
				+ " WHERE started_at > " + dialect.nowMinusMicros();
		this.countByStatus = "SELECT status, COUNT(*) FROM " + table + " GROUP BY status";
		this.oldestUnsettled = "SELECT " + COLUMNS + " FROM " + table + " WHERE " + UNSETTLED
				+ " ORDER BY started_at LIMIT ?";
		this.heartbeatPrefix = "UPDATE " + table + " SET heartbeat_at = " + now + " WHERE status = 'attempting'"
				+ " AND idempotency_key IN (";
		this.countAwaitingHuman = "SELECT COUNT(*) FROM " + table + " WHERE " + UNSETTLED + " AND reconcile_attempts >= ?";
	}

	/** Marks that many keys' calls, given as parameters, as still executing. */
	String heartbeat(int keys) {
		return this.heartbeatPrefix + String.join(", ", java.util.Collections.nCopies(keys, "?")) + ")";
	}

	/** The stale rows of only some tools, or of all but some tools, given as that many parameters. */
	String findStale(int tools, boolean only) {
		if (tools == 0) {
			return only ? null : this.findStale;
		}
		String names = String.join(", ", java.util.Collections.nCopies(tools, "?"));
		return findStale(this.table, this.dialect, " AND tool " + (only ? "IN" : "NOT IN") + " (" + names + ")");
	}

	private static String findStale(String table, LedgerDialect dialect, String toolCondition) {
		// A call whose executing instance still beats is not stale, however long it has run. Its heartbeat is
		// never older than its claim, so the claim time alone selects the candidates: a range of the index in
		// started_at order, where the limit stops the scan, and the locking read locks no more rows than it takes.
		return "SELECT " + COLUMNS + " FROM " + table + " WHERE " + UNSETTLED + " AND started_at < "
				+ dialect.nowMinusMicros() + " AND (heartbeat_at IS NULL OR heartbeat_at < " + dialect.nowMinusMicros()
				+ ")" + " AND (reconcile_after IS NULL OR reconcile_after < " + dialect.now() + ")"
				+ toolCondition + " ORDER BY started_at LIMIT ? FOR UPDATE SKIP LOCKED";
	}

}
