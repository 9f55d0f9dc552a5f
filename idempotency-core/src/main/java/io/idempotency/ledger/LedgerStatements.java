package io.idempotency.ledger;

import java.util.Collections;

/** Every statement the ledger runs, written once for a table and a dialect. */
final class LedgerStatements {

	static final String COLUMNS = "id, idempotency_key, run_id, user_id, tool, arguments, status, result, error,"
			+ " started_at, finished_at, replay_count, reconcile_attempts, reconcile_owner";

	/**
	 * What a lost claim reads of the row it lost to: the columns that decide and answer it. The key, run
	 * and tool are the claim's own (the key is derived from them), and the arguments are not read back.
	 */
	static final String ANSWER_COLUMNS = "id, user_id, status, result, error, started_at, finished_at, replay_count,"
			+ " reconcile_attempts, reconcile_owner";

	/** The rows retention may delete: settled, or never executed for want of approval. */
	private static final String SETTLED = "status IN ('succeeded', 'failed', 'rejected', 'expired')";

	/**
	 * A row still attempting, as the writes of a claimed row check it: {@code status = 'attempting'} under the
	 * table's check of the statuses, said without naming the statuses of PostgreSQL's partial index of
	 * unsettled rows ({@code WHERE status IN ('attempting', 'unknown')}). A planner may read a partial index
	 * only for a statement whose conditions imply its predicate, and none can prove that this one does: the
	 * write is planned through the row's id or key, however stale the table's statistics. Said with the
	 * statuses, it let PostgreSQL read the whole partial index (every unsettled row) whenever the statistics,
	 * taken before the unsettled rows came, counted (almost) none: the index then looked free.
	 */
	static final String STILL_ATTEMPTING = "status NOT IN ('succeeded', 'failed', 'unknown', 'awaiting', 'approved',"
			+ " 'rejected', 'expired')";

	/** A row still attempting or unknown, as the writes of a located row check it: see {@link #STILL_ATTEMPTING}. */
	static final String STILL_UNSETTLED = "status NOT IN ('succeeded', 'failed', 'awaiting', 'approved', 'rejected',"
			+ " 'expired')";

	/**
	 * The claim. On PostgreSQL one statement that either inserts the row or reads the one it lost to (its
	 * result has the columns {@code won_id} and then {@link #ANSWER_COLUMNS}); elsewhere an insert that
	 * inserts nothing (or, when it loses a race on H2, fails on the unique key) when it loses, and is followed
	 * by {@link #findClaimed}.
	 */
	final String claim;

	/** The claim of a call that needs approval: the same, inserting a row that waits for a person's approval. */
	final String claimAwaiting;

	/**
	 * Takes an approved row, by its id, for the call that executes it: it is attempting from then on, and beats
	 * as a claim does. Only one of the calls of the key that find it approved takes it.
	 */
	final String takeApproved;

	/** Why a row, by its id, needed approval, and the decision's reason: for the answer of a call of its key. */
	final String approvalOf;

	final String findClaimed;

	final String findByKey;

	/** The outcome of a call, written to the row its claim won, by the row's id. */
	final String recordOutcome;

	/** A success written over a failure that a reconciler recorded while the call still ran, by the row's id. */
	final String overturnFailure;

	final String addReplays;

	final String findStale;

	final String resolve;

	final String postpone;

	final String purgeSettled;

	final String replayStatistics;

	final String countByStatus;

	final String oldestUnsettled;

	final String countAwaitingHuman;

	private final String heartbeatPrefix;

	private final String leasePrefix;

	private final LedgerDialect dialect;

	private final String table;

	/** What the reads of other instances' claims and outcomes start with: nothing, except on Galera. */
	private final String readPrefix;

	LedgerStatements(LedgerDialect dialect, TableName tableName) {
		this(dialect, tableName, false);
	}

	/**
	 * The statements for a table and a dialect.
	 * @param onGalera whether the database is a {@linkplain Galera Galera} node: then the reads that must see
	 * another node's claims and outcomes wait for the cluster's earlier commits
	 */
	LedgerStatements(LedgerDialect dialect, TableName tableName, boolean onGalera) {
		this.dialect = dialect;
		this.readPrefix = onGalera ? Galera.CAUSAL_READ : "";
		this.table = tableName.qualified();
		String table = tableName.qualified();
		String now = dialect.now();
		String unsettled = dialect.unsettled();
		this.claim = dialect.claim(table, false);
		this.claimAwaiting = dialect.claim(table, true);
		// The heartbeat's time, not the claim's, says that a call runs now: the claim time stays when it was
		// asked for, and the reconciler takes no row whose heartbeat is fresh.
		this.takeApproved = "UPDATE " + table + " SET status = 'attempting', heartbeat_at = " + now
				+ " WHERE id = ? AND status = 'approved'";
		this.approvalOf = this.readPrefix + "SELECT approval_reason, decision_reason FROM " + table + " WHERE id = ?";
		this.findClaimed = this.readPrefix + "SELECT " + ANSWER_COLUMNS + " FROM " + table + " WHERE idempotency_key = ?";
		this.findByKey = this.readPrefix + "SELECT " + COLUMNS + " FROM " + table + " WHERE idempotency_key = ?";
		// Only the attempt holding the claim records its outcome: it expects the row still attempting. The row a
		// claim won is written by its id, through the primary key: never another claim's row of the same key.
		this.recordOutcome = "UPDATE " + table + " SET status = ?, result = " + dialect.json() + ", error = ?,"
				+ " finished_at = " + now + " WHERE id = ? AND " + STILL_ATTEMPTING;
		// 'failed' is none of the partial index's statuses: this condition cannot lead a planner to it either.
		this.overturnFailure = "UPDATE " + table + " SET status = 'succeeded', result = " + dialect.json()
				+ ", error = ?, finished_at = " + now + " WHERE id = ? AND status = 'failed'";
		this.addReplays = "UPDATE " + table + " SET replay_count = replay_count + ?, last_replay_at = " + now
				+ " WHERE idempotency_key = ?";
		this.findStale = this.readPrefix + findStale(table, dialect, "");
		this.leasePrefix = "UPDATE " + table + " SET reconcile_owner = ?, reconcile_after = " + dialect.nowPlusMicros()
				+ ", reconcile_attempts = reconcile_attempts + 1 WHERE id IN (";
		this.resolve = "UPDATE " + table + " SET status = ?, result = " + dialect.json() + ", error = ?, finished_at = "
				+ now + ", reconcile_owner = NULL, reconcile_after = NULL WHERE id = ? AND reconcile_owner = ? AND "
				+ STILL_UNSETTLED;
		this.postpone = "UPDATE " + table + " SET reconcile_owner = NULL, reconcile_after = " + dialect.nowPlusMicros()
				+ " WHERE id = ? AND reconcile_owner = ? AND " + STILL_UNSETTLED;
		// Counted from when the call was settled: a call settled long after it started (by a person, or by a late
		// success) is kept as long as any other. The bound on started_at, which no settled row's finished_at
		// precedes, lets the index on it find the candidates.
		this.purgeSettled = dialect.purge(table, SETTLED + " AND started_at < " + dialect.nowMinusMicros()
				+ " AND COALESCE(finished_at, started_at) < " + dialect.nowMinusMicros());
		this.replayStatistics = "SELECT COUNT(*), COALESCE(SUM(replay_count), 0) FROM " + table
				+ " WHERE started_at > " + dialect.nowMinusMicros();
		this.countByStatus = "SELECT status, COUNT(*) FROM " + table + " GROUP BY status";
		this.oldestUnsettled = "SELECT " + COLUMNS + " FROM " + table + " WHERE " + unsettled + " ORDER BY "
				+ dialect.unsettledSince() + " LIMIT ?";
		this.heartbeatPrefix = "UPDATE " + table + " SET heartbeat_at = " + now + " WHERE " + STILL_ATTEMPTING
				+ " AND id IN (";
		this.countAwaitingHuman = "SELECT COUNT(*) FROM " + table + " WHERE " + unsettled + " AND reconcile_attempts >= ?";
	}

	/**
	 * What a read of other instances' writes starts with: nothing, except on Galera, where it waits for the
	 * cluster's earlier commits.
	 */
	String readPrefix() {
		return this.readPrefix;
	}

	/** Counts the unsettled rows claimed longer ago than the first parameter, of that many tools that follow. */
	String countUnsettledOf(int tools) {
		return "SELECT COUNT(*) FROM " + this.table + " WHERE " + this.dialect.unsettled() + " AND "
				+ this.dialect.unsettledSince() + " < " + this.dialect.nowMinusMicros() + " AND tool IN ("
				+ parameters(tools) + ")";
	}

	/**
	 * Locks the rows of that many keys, given as parameters, for their replay counts, and returns the keys of
	 * those it locked: a row another transaction holds (on MariaDB and MySQL, one whose insert it has not
	 * committed, or that its lost claim locked) is skipped, never waited for.
	 */
	String lockReplayRows(int keys) {
		return "SELECT idempotency_key FROM " + this.table + " WHERE idempotency_key IN (" + parameters(keys)
				+ ") FOR UPDATE SKIP LOCKED";
	}

	/** Marks the calls of that many rows, given by id as parameters, as still executing. */
	String heartbeat(int rows) {
		return this.heartbeatPrefix + parameters(rows) + ")";
	}

	/** The stale rows of some tools, given as that many parameters. */
	String findStaleOf(int tools) {
		return this.readPrefix + findStale(this.table, this.dialect, " AND tool IN (" + parameters(tools) + ")");
	}

	/**
	 * Leases that many rows, given by id after the owner and the lease's length. Where the dialect
	 * {@linkplain LedgerDialect#writesReturnRows() returns rows from a write}, this is not used.
	 */
	String lease(int rows) {
		return this.leasePrefix + parameters(rows) + ")";
	}

	/**
	 * Finds the stale rows and leases them in one statement, returning them: for a dialect that
	 * {@linkplain LedgerDialect#writesReturnRows() can}. Parameters: the owner, the lease's length, then
	 * those of {@code findStale}.
	 */
	String leaseInOneStatement(String findStale) {
		String ids = findStale.replaceFirst("^SELECT " + COLUMNS + " ", "SELECT id ");
		return this.leasePrefix + ids + ") RETURNING " + COLUMNS;
	}

	private static String parameters(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	private static String findStale(String table, LedgerDialect dialect, String toolCondition) {
		// A call whose executing instance still beats is not stale, however long it has run. Its heartbeat is
		// never older than its claim, so the claim time alone selects the candidates: a range of the queue's
		// index in claim order, where the limit stops the scan, and the locking read locks no more rows than it
		// takes.
		String since = dialect.unsettledSince();
		return "SELECT " + COLUMNS + " FROM " + table + " WHERE " + dialect.unsettled() + " AND " + since + " < "
				+ dialect.nowMinusMicros() + " AND (heartbeat_at IS NULL OR heartbeat_at < " + dialect.nowMinusMicros()
				+ ")" + " AND (reconcile_after IS NULL OR reconcile_after < " + dialect.now() + ")"
				+ toolCondition + " ORDER BY " + since + " LIMIT ? FOR UPDATE SKIP LOCKED";
	}

}
