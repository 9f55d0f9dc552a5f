package io.idempotency.ledger;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;

import org.springframework.transaction.PlatformTransactionManager;

/**
 * The ledger on a relational database: a table whose unique constraint on the idempotency key decides,
 * atomically, which one of any number of identical calls executes. PostgreSQL, MariaDB, MySQL and H2 are
 * supported; the dialect is chosen from the JDBC metadata.
 *
 * <p>Every write is committed before the call goes on, even when the caller has a transaction open: a claim
 * must be visible to every other caller before the effect starts, and must survive the caller's rollback.
 * Outside a transaction each statement commits on its own; inside one, the ledger suspends it and uses a
 * short transaction of its own. Times come from the database clock.
 *
 * <p>Optionally, outcomes are written behind their callers, in batches, on a thread of the ledger's own
 * ({@link OutcomeWriteBehind}); calls in the caller's transaction never are.
 *
 * <p>Thread-safe. {@link #close()} writes the outcomes that wait, and flushes the replay counts that are still
 * in memory.
 *
 * <p>The one ledger object an application declares: the call path ({@link CallLedger}), the reconciler's queue
 * ({@link ReconcileQueue}), settlement by hand ({@link SettlementQueue}), housekeeping and operators' queries,
 * each carried out by a class of its own.
 */
public final class JdbcLedger implements CallLedger, ReconcileQueue, SettlementQueue, AutoCloseable {

	/** The longest error text stored; longer ones are cut. */
	public static final int MAX_ERROR_LENGTH = 4000;

	private final LedgerDatabase database;

	private final Redaction redaction;

	private final CallStatements statements;

	private final CommittedClaims claims;

	private final CallOutcomes outcomes;

	private final Heartbeat heartbeat;

	private final Leases leases;

	private final ReplayCountWrites replayCounts;

	private final Retention retention;

	private final LedgerQueries queries;

	private final SettlementStatements settlements;

	private final ApprovalStatements approvals;

	/**
	 * A ledger on the table {@code tool_audit} that redacts the {@linkplain Redaction#defaults() default names},
	 * with neither a replay cache nor write-behind.
	 */
	public JdbcLedger(DataSource dataSource) {
		this(dataSource, TableName.DEFAULT, Redaction.defaults());
	}

	/** A ledger on the given table, with neither a replay cache nor write-behind: see the last constructor. */
	public JdbcLedger(DataSource dataSource, String tableName, Redaction redaction) {
		this(dataSource, tableName, redaction, ReplayCache.off());
	}

	/** A ledger on the given table that answers repeats from memory as the cache allows: see the last constructor. */
	public JdbcLedger(DataSource dataSource, String tableName, Redaction redaction, ReplayCache replayCache) {
		this(dataSource, tableName, redaction, replayCache, OutcomeWriteBehind.off());
	}

	/**
	 * A ledger on the given table that keeps succeeded outcomes in memory as the cache allows, answering repeats
	 * of them from there, and writes outcomes behind their callers where write-behind is on: the outcome's commit
	 * leaves the caller's path, and another instance sees the call in progress until it is written (see
	 * {@link OutcomeWriteBehind}). {@link #close()} writes the outcomes still waiting.
	 * @param tableName the table, optionally schema-qualified; checked as an SQL identifier
	 * @param redaction what to remove from arguments before they are stored
	 * @param replayCache how many succeeded outcomes to keep in memory, and for how long
	 * @param writeBehind whether, and how, outcomes are written after their callers are answered
	 * @throws IllegalArgumentException if the table name is not a valid SQL identifier
	 * @throws IllegalStateException if the database is not supported
	 */
	public JdbcLedger(DataSource dataSource, String tableName, Redaction redaction, ReplayCache replayCache,
			OutcomeWriteBehind writeBehind) {
		Objects.requireNonNull(dataSource, "dataSource");
		Objects.requireNonNull(writeBehind, "writeBehind");
		SettledOutcomes settled = new SettledOutcomes(Objects.requireNonNull(replayCache, "replayCache"));
		TableName table = TableName.of(tableName);
		this.redaction = Objects.requireNonNull(redaction, "redaction");
		LedgerDatabase db = LedgerDatabase.of(dataSource, table);
		this.database = db;
		ReplayCounter replays = new ReplayCounter(ReplayCounter.LEDGER_CAPACITY);
		CallsInFlight inFlight = new CallsInFlight();
		this.statements = new CallStatements(db);
		this.leases = new Leases(db);
		this.queries = new LedgerQueries(db);
		this.replayCounts = new ReplayCountWrites(db, replays);
		this.heartbeat = new Heartbeat(db, inFlight);
		this.settlements = new SettlementStatements(db.jdbc(), db.dialect(), table, db.rows(), db.transactions());
		this.approvals = new ApprovalStatements(db, this.statements);
		this.retention = new Retention(db, settled);
		this.outcomes = new CallOutcomes(new OutcomeWrites(this.statements, db.transactions()), inFlight, writeBehind,
				table);
		this.claims = new CommittedClaims(this.statements, db.transactions(), redaction, settled, replays, inFlight,
				this.outcomes);
	}

	/** The calls that wait for a person's approval: what {@code io.idempotency.reconcile.Approvals} decides on. */
	public ApprovalQueue approvals() {
		return this.approvals;
	}

	/**
	 * This ledger, writing in the caller's transaction instead of committing on its own: for tools whose
	 * claim, effect and outcome must commit or roll back together. Use it only inside a transaction on this
	 * ledger's {@code DataSource}, at isolation read committed. Replay counts and late completions are
	 * shared with this ledger.
	 */
	public CallLedger inCallersTransaction() {
		return this.claims.inCallersTransaction();
	}

	/** The {@code DataSource} this ledger writes to. */
	public DataSource dataSource() {
		return this.database.dataSource();
	}

	/**
	 * Whether the transactions of this transaction manager hold a connection of this ledger's
	 * {@code DataSource}, so that writes {@linkplain #inCallersTransaction() in the caller's transaction} commit
	 * or roll back with them: a {@code DataSourceTransactionManager} (or {@code JdbcTransactionManager}) of it,
	 * or a JPA or Hibernate transaction manager whose {@code DataSource} it is. A JTA transaction manager, or one
	 * of another {@code DataSource}, does not.
	 */
	public boolean joinsTransactionsOf(PlatformTransactionManager transactionManager) {
		return TransactionManagers.joins(transactionManager, this.database.dataSource());
	}

	@Override
	public Redaction redaction() {
		return this.redaction;
	}

	/** The table this ledger writes. */
	public String tableName() {
		return this.database.table().qualified();
	}

	/**
	 * {@inheritDoc} The insert wins, or loses to a row read in the same call; never check-then-insert.
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	@Override
	public Claim claim(ClaimRequest request) {
		return this.claims.claim(request);
	}

	/**
	 * Records that the claimed call returned, on the row its claim inserted. Only the attempt that holds the
	 * claim may: if that row is no longer attempting, the outcome someone else recorded meanwhile stays (and if
	 * it is gone, nothing is written), and the late completion is logged and counted; with one exception. When a
	 * reconciler resolved the call {@code failed} while it was still running (its instance paused too long to
	 * beat, say), that {@code failed} only meant "no effect found yet": the success is written over it, with its
	 * result, and counted as a {@linkplain #lateSuccesses() late success}.
	 */
	@Override
	public boolean recordSucceeded(Claim.Won claim, String resultJson) {
		return this.outcomes.record(claim, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	/**
	 * {@inheritDoc}
	 * @param reason why the result is not stored, kept in the row's error column
	 */
	@Override
	public boolean recordSucceededWithoutResult(Claim.Won claim, String reason) {
		return this.outcomes.record(claim, LedgerStatus.SUCCEEDED, null, reason);
	}

	@Override
	public boolean recordFailed(Claim.Won claim, String error) {
		return this.outcomes.record(claim, LedgerStatus.FAILED, null, error);
	}

	@Override
	public boolean recordUnknown(Claim.Won claim, String error) {
		return this.outcomes.record(claim, LedgerStatus.UNKNOWN, null, error);
	}

	/**
	 * Marks every call this ledger claimed whose outcome is not yet recorded as still executing, so that the
	 * reconciler leaves it alone however long it runs. Call it more often than the shortest threshold (the
	 * starter does, every {@code idempotency.heartbeat.interval}); when the instance dies, its calls stop beating.
	 * @return how many rows were marked
	 */
	public int heartbeat() {
		return this.heartbeat.beat();
	}

	/** How many calls this ledger claimed whose outcome is not yet recorded: the calls it beats for. */
	public int inFlight() {
		return this.heartbeat.beatingFor();
	}

	/**
	 * The row of a key, if there is one: as committed, read on a connection of the ledger's own. A row whose
	 * outcome waits to be written behind its caller is still attempting here ({@link #writePendingOutcomes()}
	 * writes it; {@link #findLatest} reads it with that outcome).
	 */
	@Override
	public Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.claims.find(key);
	}

	/**
	 * The row of a key as a repeat made here now is answered from: an outcome of the key's latest claim here
	 * that waits to be written (its times not yet known), read from memory; else the row as {@link #find} reads
	 * it. A repeat waiting for a running call reads it, to be answered as soon as the call settles here.
	 */
	@Override
	public Optional<LedgerEntry> findLatest(IdempotencyKey key) {
		return this.claims.findLatest(key);
	}

	/**
	 * Takes a batch of rows that have been attempting or unknown for longer than a threshold (since their
	 * claim or their last {@linkplain #heartbeat() heartbeat}, whichever is later), for the reconciler, and
	 * leases them: until the lease ends, or the row is resolved or postponed by this lease, no other caller (on
	 * this or any other instance) receives the same rows.
	 * @param olderThan how long a row must have been unsettled
	 * @param limit the most rows to take
	 * @param leaseFor how long the rows are reserved for the caller
	 * @return the leased rows, oldest first, each carrying its lease in {@link LedgerEntry#reconcileOwner()}
	 */
	public List<LedgerEntry> leaseStale(Duration olderThan, int limit, Duration leaseFor) {
		return this.leases.leaseStale(olderThan, limit, leaseFor);
	}

	@Override
	public List<LedgerEntry> leaseStaleOf(Set<String> tools, Duration olderThan, int limit, Duration leaseFor) {
		return this.leases.leaseStaleOf(tools, olderThan, limit, leaseFor);
	}

	@Override
	public boolean resolveSucceeded(LedgerEntry leased, String resultJson) {
		return this.leases.resolveSucceeded(leased, resultJson);
	}

	@Override
	public boolean resolveFailed(LedgerEntry leased, String error) {
		return this.leases.resolveFailed(leased, error);
	}

	@Override
	public boolean postpone(LedgerEntry leased, Duration retryAfter) {
		return this.leases.postpone(leased, retryAfter);
	}

	/**
	 * Deletes settled rows (succeeded or failed) settled longer ago than the retention, in batches of
	 * bounded size, each in its own transaction. Unsettled rows are never deleted.
	 * @return how many rows were deleted
	 */
	public long purgeSettled(Duration retention, int batchSize) {
		return this.retention.purgeSettled(retention, batchSize);
	}

	@Override
	public void recordReplay(IdempotencyKey key) {
		this.claims.recordReplay(key);
	}

	/**
	 * Writes the replay counts held in memory to their rows, in batches. Call it regularly (the starter
	 * schedules it) and on shutdown. It never waits on a row lock: the count of a row that another transaction
	 * holds (a transactional call still running, whose claim is not committed; a transaction whose claim lost to
	 * the row) is kept for the next flush, for up to an hour. Every other count recorded before it was called is
	 * written when it returns: a flush running on another thread (the scheduled one) is waited for, so that
	 * statistics read next count it.
	 * @return how many keys' counts were written
	 */
	public int flushReplayCounts() {
		return this.replayCounts.flush();
	}

	/**
	 * Executions and replays over a window ending now, across every instance that writes this table, as
	 * far as replay counts have been flushed.
	 */
	public ReplayStatistics replayStatistics(Duration window) {
		return this.queries.replayStatistics(window);
	}

	/**
	 * How many rows of these tools have been attempting or unknown since longer ago than the given time: for
	 * tools that no reconciler resolves (transactional tools, whose claim commits only with their outcome),
	 * such a row is a claim committed without its transaction and waits for a person.
	 */
	public long countUnsettledOf(Set<String> tools, Duration olderThan) {
		return this.queries.countUnsettledOf(tools, olderThan);
	}

	/** How many rows there are of each status (a scan of the table: for an operator's view, not a hot path). */
	public Map<LedgerStatus, Long> countByStatus() {
		return this.queries.countByStatus();
	}

	/** The oldest rows still attempting or unknown, oldest first. */
	public List<LedgerEntry> oldestUnsettled(int limit) {
		return this.queries.oldestUnsettled(limit);
	}

	/**
	 * How many unsettled rows the reconciler has tried at least this many times: with the reconciler's
	 * {@code maxAttempts}, the rows that wait for a human.
	 */
	public long countAwaitingHuman(int attempts) {
		return this.queries.countAwaitingHuman(attempts);
	}

	@Override
	public List<CallRecord> unsettled(String tool, Duration olderThan, int awaitingHumanAfter, long afterId,
			int limit) {
		return this.settlements.unsettled(tool, olderThan, awaitingHumanAfter, afterId, limit);
	}

	@Override
	public Optional<CallRecord> record(IdempotencyKey key) {
		return this.settlements.record(key);
	}

	@Override
	public boolean settle(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error,
			int awaitingHumanAfter, String settledBy, String reason) {
		return this.settlements.settle(key, outcome, resultJson, error, awaitingHumanAfter, settledBy, reason);
	}

	@Override
	public boolean sendBack(IdempotencyKey key, int awaitingHumanAfter, int attempts, String settledBy,
			String reason) {
		return this.settlements.sendBack(key, awaitingHumanAfter, attempts, settledBy, reason);
	}

	/** How many calls completed, since this ledger started, after someone else had resolved their row: not written. */
	public long lateCompletions() {
		return this.statements.lateCompletions();
	}

	/**
	 * How many calls succeeded after a reconciler had resolved them {@code failed} while they still ran, and
	 * had their success written over that failure, since this ledger started.
	 */
	public long lateSuccesses() {
		return this.outcomes.lateSuccesses();
	}

	/** How many outcomes wait to be written behind their callers ({@code 0} where write-behind is off). */
	public int pendingOutcomes() {
		return this.outcomes.waitingCount();
	}

	/**
	 * Writes every outcome that waits behind its caller now, without waiting for the rest of its delay, and
	 * returns once each is written (or, where it could not be, logged and left to the reconciler): before reading
	 * the table in a test, or before the heartbeat stops on shutdown (the starter does). Nothing where
	 * write-behind is off.
	 */
	public void writePendingOutcomes() {
		this.outcomes.writeWaiting();
	}

	/**
	 * Writes the outcomes still waiting behind their callers (later ones are written by their callers), flushes
	 * the replay counts still in memory (but those of rows that other transactions still hold), and gives the
	 * heartbeat's connection back to the pool.
	 */
	@Override
	public void close() {
		this.outcomes.close();
		try {
			this.replayCounts.flushOnClose();
		}
		finally {
			this.heartbeat.close();
		}
	}

}
