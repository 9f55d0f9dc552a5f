package io.idempotency.ledger;

import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
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
 * <p>It is the one ledger object an application declares, so every operation is here with its contract:
 * the call path ({@link CallLedger}), the reconciler's queue ({@link ReconcileQueue}), settlement by hand
 * ({@link SettlementQueue}), housekeeping (heartbeat, retention, replay counts) and operators' queries. Each job
 * is carried out by a package-private class of its own ({@code CallStatements}, {@code CallersTransactionLedger},
 * {@code Leases}, {@code SettlementStatements}, {@code LedgerQueries},
 * {@code HeartbeatConnection}, {@code OwnTransactions}, {@code OutcomeWrites}, {@code PendingOutcomes},
 * {@code ReplayCountWrites}, {@code CallsInFlight}); what this class keeps is the claim on its own connection,
 * with its retries.
 */
public final class JdbcLedger implements CallLedger, ReconcileQueue, SettlementQueue, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** The longest error text stored; longer ones are cut. */
	public static final int MAX_ERROR_LENGTH = 4000;

	/** How often a claim on the ledger's own connection is made when it loses a lock conflict. */
	private static final int CLAIM_ATTEMPTS = 6;

	private static final int REPLAY_COUNT_CAPACITY = 100_000;

	private static final int HEARTBEAT_BATCH = 100;

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final OwnTransactions transactions;

	private final LedgerRows rows;

	private final Leases queue;

	private final LedgerQueries queries;

	private final LedgerDialect dialect;

	private final TableName table;

	private final LedgerStatements sql;

	private final Redaction redaction;

	private final ReplayCounter replays;

	/** One flush of the replay counts at a time: a flush returns once those drained before it are written. */
	private final java.util.concurrent.locks.ReentrantLock flushing = new java.util.concurrent.locks.ReentrantLock();

	private final ReplayCountWrites replayCounts;

	private final CallStatements statements;

	private final OutcomeWrites outcomes;

	private final HeartbeatConnection heartbeatConnection;

	/** Calls claimed here whose outcome is not yet written, by the id of the row each claim won. */
	private final CallsInFlight inFlight = new CallsInFlight();

	/** The outcomes waiting to be written behind their callers; {@code null} where write-behind is off. */
	private final PendingOutcomes pending;

	private final SettledOutcomes settled;

	private final SettlementStatements settlements;

	/**
	 * A ledger on the table {@code tool_audit} that redacts the {@linkplain Redaction#defaults() default
	 * names}.
	 */
	public JdbcLedger(DataSource dataSource) {
		this(dataSource, TableName.DEFAULT, Redaction.defaults());
	}

	/**
	 * A ledger on the given table.
	 * @param tableName the table, optionally schema-qualified; checked as an SQL identifier
	 * @param redaction what to remove from arguments before they are stored
	 * @throws IllegalArgumentException if the table name is not a valid SQL identifier
	 * @throws IllegalStateException if the database is not supported
	 */
	public JdbcLedger(DataSource dataSource, String tableName, Redaction redaction) {
		this(dataSource, tableName, redaction, ReplayCache.off());
	}

	/**
	 * A ledger on the given table that answers repeats of succeeded calls it has read from memory, as the
	 * cache allows.
	 * @param tableName the table, optionally schema-qualified; checked as an SQL identifier
	 * @param redaction what to remove from arguments before they are stored
	 * @param replayCache how many succeeded outcomes to keep in memory, and for how long
	 * @throws IllegalArgumentException if the table name is not a valid SQL identifier
	 * @throws IllegalStateException if the database is not supported
	 */
	public JdbcLedger(DataSource dataSource, String tableName, Redaction redaction, ReplayCache replayCache) {
		this(dataSource, tableName, redaction, replayCache, OutcomeWriteBehind.off());
	}

	/**
	 * A ledger on the given table that keeps succeeded outcomes as the cache allows, and writes outcomes behind
	 * their callers where write-behind is on: the outcome's commit leaves the caller's path, and another instance
	 * sees the call in progress until it is written (see {@link OutcomeWriteBehind}). {@link #close()} writes the
	 * outcomes still waiting.
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
		this.settled = new SettledOutcomes(Objects.requireNonNull(replayCache, "replayCache"));
		this.table = TableName.of(tableName);
		this.redaction = Objects.requireNonNull(redaction, "redaction");
		this.dataSource = dataSource;
		this.dialect = dialectOf(dataSource);
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.setExceptionTranslator(DatabaseErrors.translator(this.jdbc.getExceptionTranslator()));
		this.sql = new LedgerStatements(this.dialect, this.table, Galera.detect(this.dialect, this.jdbc));
		this.transactions = new OwnTransactions(dataSource, this.jdbc);
		this.rows = new LedgerRows(this.dialect);
		this.queue = new Leases(this.jdbc, this.sql, this.dialect, this.rows, this.transactions);
		this.queries = new LedgerQueries(this.jdbc, this.sql, this.rows);
		this.replays = new ReplayCounter(REPLAY_COUNT_CAPACITY);
		this.replayCounts = new ReplayCountWrites(this.jdbc, this.sql, this.transactions, this.replays);
		this.statements = new CallStatements(this.jdbc, this.sql, this.dialect, this.rows);
		this.heartbeatConnection = new HeartbeatConnection(dataSource, this.jdbc.getExceptionTranslator());
		this.settlements = new SettlementStatements(this.jdbc, this.dialect, this.table, this.rows, this.transactions);
		this.outcomes = new OutcomeWrites(this.statements, this.transactions);
		this.pending = writeBehind.enabled() ? new PendingOutcomes(writeBehind, this::writeBehind, this::ended) : null;
	}

	/**
	 * This ledger, writing in the caller's transaction instead of committing on its own: for tools whose
	 * claim, effect and outcome must commit or roll back together. Use it only inside a transaction on this
	 * ledger's {@code DataSource}, at isolation read committed. Replay counts and late completions are
	 * shared with this ledger.
	 */
	public CallLedger inCallersTransaction() {
		return new CallersTransactionLedger(this.statements, this.redaction, this.settled, this.replays);
	}

	static LedgerDialect dialectOf(DataSource dataSource) {
		try {
			String product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
			return LedgerDialect.forProductName(product);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not tell which database the idempotency ledger is on", ex);
		}
	}

	/** The {@code DataSource} this ledger writes to. */
	public DataSource dataSource() {
		return this.dataSource;
	}

	/**
	 * Whether the transactions of this transaction manager hold a connection of this ledger's
	 * {@code DataSource}, so that writes {@linkplain #inCallersTransaction() in the caller's transaction} commit
	 * or roll back with them: a {@code DataSourceTransactionManager} (or {@code JdbcTransactionManager}) of it,
	 * or a JPA or Hibernate transaction manager whose {@code DataSource} it is. A JTA transaction manager, or one
	 * of another {@code DataSource}, does not.
	 */
	public boolean joinsTransactionsOf(PlatformTransactionManager transactionManager) {
		return TransactionManagers.joins(transactionManager, this.dataSource);
	}

	/** What this ledger removes from arguments before it stores them. */
	@Override
	public Redaction redaction() {
		return this.redaction;
	}

	/** The table this ledger writes. */
	public String tableName() {
		return this.table.qualified();
	}

	/**
	 * Claims the call's key. The insert either wins, and the call may execute, or it loses to an existing
	 * row, which is read in the same call and tells why the call must not execute. Never check-then-insert:
	 * the unique constraint decides.
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	@Override
	public Claim claim(ClaimRequest request) {
		LedgerEntry kept = keptOutcome(request.key());
		if (kept != null) {
			return this.replays.counted(this.statements.answerFrom(kept, request));
		}
		String storedArguments = this.redaction.redact(request.arguments(), request.sensitiveNames());
		Claim claim = claimCommitted(request, storedArguments);
		if (claim instanceof Claim.Won won) {
			// Claimed and committed: until its outcome is recorded, this instance beats for it.
			this.inFlight.claimed(won, request, storedArguments);
		}
		else if (claim instanceof Claim.Replay replay) {
			// Read on a connection of the ledger's own, so committed: a success is final and may be kept. A row
			// read in the caller's transaction may be its own, and may yet roll back.
			this.settled.keep(replay.entry());
		}
		return this.replays.counted(claim);
	}

	/**
	 * What answers a repeat here without the database: a success or failure of this instance's that waits to
	 * be written, or a success read before and kept.
	 */
	private LedgerEntry keptOutcome(IdempotencyKey key) {
		LedgerEntry waiting = waitingOutcome(key);
		return (waiting != null) ? waiting : this.settled.find(key);
	}

	/**
	 * The success or failure that waits to be written to the row of the key's latest claim here, or {@code null}.
	 * An outcome of an earlier claim of the key (whose row was deleted while its call ran) answers nothing: the
	 * key's row is the later claim's. A waiting outcome unknown answers nothing either: the table's row says since
	 * when the call has been in progress.
	 */
	private LedgerEntry waitingOutcome(IdempotencyKey key) {
		if (this.pending == null) {
			return null;
		}
		Long latest = this.inFlight.latestRow(key);
		LedgerEntry waiting = (latest != null) ? this.pending.find(latest) : null;
		return (waiting != null && waiting.status() != LedgerStatus.UNKNOWN) ? waiting : null;
	}

	/**
	 * The claim, committed on the ledger's own connection; a claim that loses a deadlock or a lock wait
	 * (MariaDB's and MySQL's unique-index locks, under concurrent inserts, outcomes, transactional tools and
	 * retention's deletes) was rolled back whole by the database. It may have lost on a row that is already
	 * there and committed: a plain read, which takes no lock and so cannot lose again, answers from that row.
	 * Where there is none, the claim is made again, a few times, each after a short random pause that lets the
	 * transaction it lost to finish: made again at once, it lost to the same one again.
	 */
	private Claim claimCommitted(ClaimRequest request, String storedArguments) {
		for (int attempt = 1;; attempt++) {
			try {
				return this.transactions.committed(() -> this.statements.claimOnce(request, storedArguments));
			}
			catch (PessimisticLockingFailureException ex) {
				Optional<Claim> lostTo = this.transactions.committed(() -> this.statements.findClaimed(request,
						storedArguments));
				if (lostTo.isPresent()) {
					return lostTo.get();
				}
				// A lock wait that timed out waited long already, on a holder that still runs: no second wait. A
				// serialization failure was made again already, as all of the ledger's work is.
				if (attempt >= CLAIM_ATTEMPTS || DatabaseErrors.isLockWaitTimeout(ex)
						|| DatabaseErrors.isSerializationFailure(ex)) {
					throw ex;
				}
				logger.atDebug()
					.addKeyValue("idempotency.tool", request.tool())
					.addKeyValue("idempotency.key", request.key().value())
					.addKeyValue("idempotency.run", request.runId())
					.log("The claim of {} lost a lock conflict and is made again: {}", request.key(), String.valueOf(ex));
				RetryPause.before(attempt, ex);
			}
		}
	}

	/**
	 * Records that the claimed call returned, on the row its claim inserted. Only the attempt that holds the
	 * claim may: if that row is no longer attempting, the outcome someone else recorded meanwhile stays (and if it
	 * is gone, nothing is written), and the late completion is logged and counted; with one exception. When a reconciler resolved the call {@code failed} while it was still
	 * running (its instance paused too long to beat, say), that {@code failed} only meant "no effect found
	 * yet": the success is written over it, with its result, and counted as a {@linkplain #lateSuccesses()
	 * late success}.
	 * @param claim the claim this call won
	 * @param resultJson the result as JSON ({@code "null"} for a tool that returned null), or {@code null}
	 * for a tool that returns nothing
	 * @return whether the outcome was recorded; {@code false} for a late completion that was not written
	 */
	@Override
	public boolean recordSucceeded(Claim.Won claim, String resultJson) {
		return recordOutcome(claim, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	/**
	 * Records that the claimed call returned, but that its result cannot be stored (it cannot be written as
	 * JSON, say). A repeat is answered as done, without a result: never with a {@code null} that would pass
	 * for one.
	 * @param reason why the result is not stored, kept in the row's error column
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	@Override
	public boolean recordSucceededWithoutResult(Claim.Won claim, String reason) {
		return recordOutcome(claim, LedgerStatus.SUCCEEDED, null, reason);
	}

	/**
	 * Records that the claimed call definitely did not take effect. A repeat of it is answered as a
	 * previous failure and not executed.
	 * @param claim the claim this call won
	 * @param error what went wrong
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	@Override
	public boolean recordFailed(Claim.Won claim, String error) {
		return recordOutcome(claim, LedgerStatus.FAILED, null, error);
	}

	/**
	 * Records that the claimed call ended without telling whether it took effect (a timeout, an I/O error).
	 * The reconciler resolves it.
	 * @param claim the claim this call won
	 * @param error what went wrong
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	@Override
	public boolean recordUnknown(Claim.Won claim, String error) {
		return recordOutcome(claim, LedgerStatus.UNKNOWN, null, error);
	}

	private boolean recordOutcome(Claim.Won claim, LedgerStatus outcome, String resultJson, String error) {
		Objects.requireNonNull(claim, "claim");
		// A call that claimed here and has recorded nothing yet is in flight, under the id of its row, and holds its
		// claim. One claimed through another ledger object is written on its row all the same, by the claim's id, on
		// the caller's path; never over a reconciler's failure, which this ledger cannot tell it held its claim for.
		LedgerEntry held = this.inFlight.outcome(claim, outcome, resultJson, LedgerRows.truncate(error));
		if (held != null && this.pending != null && this.pending.offer(held)) {
			// Written behind the caller; until then the call is beaten for as running, and answered from memory.
			return true;
		}
		try {
			return this.outcomes.write(claim.key(), claim.rowId(), held != null, outcome, resultJson, error);
		}
		finally {
			// Recorded or not, the call has ended here: a row left attempting is the reconciler's, not ours.
			if (held != null) {
				this.inFlight.ended(claim.key(), claim.rowId());
			}
		}
	}

	/**
	 * Writes a batch of outcomes that waited behind their callers, at any time, a flush of the replay counts
	 * running or not: a flush locks only rows that are free and waits on none, so the two never deadlock, and a
	 * batch waits on a flush only for the flush's own short transaction. (Shared, one lock made a batch wait
	 * for as long as a flush waited on a running transactional call's row.)
	 */
	private void writeBehind(List<LedgerEntry> batch) {
		this.outcomes.writeBatch(batch, this::ended);
	}

	/** A call whose outcome has been written, or given up on: no longer beaten for, nor answered from memory. */
	private void ended(LedgerEntry outcome) {
		this.inFlight.ended(outcome.key(), outcome.id());
		this.pending.written(outcome);
	}

	/**
	 * Marks every call that this ledger claimed and whose outcome is not yet recorded as still executing, so
	 * that the reconciler leaves it alone however long it runs: a call is stale only when neither its claim
	 * nor its last heartbeat is more recent than the reconciler's threshold. Call it more often than the
	 * shortest threshold (the starter does, every {@code idempotency.heartbeat.interval}); when the instance
	 * dies, its calls stop beating and are reconciled.
	 * @return how many rows were marked
	 */
	public int heartbeat() {
		// The first beat takes the heartbeat's own connection, before the calls it protects can exhaust the pool.
		this.heartbeatConnection.reserve();
		List<Long> rows = this.inFlight.rows();
		int marked = 0;
		for (int from = 0; from < rows.size(); from += HEARTBEAT_BATCH) {
			List<Long> batch = rows.subList(from, Math.min(rows.size(), from + HEARTBEAT_BATCH));
			marked += this.heartbeatConnection.update(this.sql.heartbeat(batch.size()), batch);
		}
		return marked;
	}

	/** How many calls this ledger claimed whose outcome is not yet recorded: the calls it beats for. */
	public int inFlight() {
		return this.inFlight.size();
	}

	/**
	 * The row of a key, if there is one: as committed, read on a connection of the ledger's own. A row whose
	 * outcome waits to be written behind its caller is still attempting here ({@link #writePendingOutcomes()}
	 * writes it; {@link #findLatest} reads it with that outcome).
	 */
	@Override
	public Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.transactions.committed(() -> this.statements.find(key));
	}

	/**
	 * The row of a key as a repeat made here now is answered from: where the call of the key's latest claim here
	 * has succeeded or failed and its outcome waits to be written behind its caller, the row with that outcome
	 * (without its times, which are the database's and not yet known), read from memory; else the row as
	 * {@link #find} reads it. A repeat that waits for a running call reads it, so that it is answered as soon as
	 * the call settles here, as a repeat made then would be.
	 */
	@Override
	public Optional<LedgerEntry> findLatest(IdempotencyKey key) {
		LedgerEntry waiting = waitingOutcome(key);
		return (waiting != null) ? Optional.of(waiting) : find(key);
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
		return this.queue.leaseStale(olderThan, limit, leaseFor);
	}

	/**
	 * As {@link #leaseStale(Duration, int, Duration)}, for the rows of the given tools only: for tools whose
	 * calls legitimately run longer than others.
	 */
	@Override
	public List<LedgerEntry> leaseStaleOf(Set<String> tools, Duration olderThan, int limit, Duration leaseFor) {
		return this.queue.leaseStaleOf(tools, olderThan, limit, leaseFor);
	}

	/**
	 * Resolves a leased row as succeeded: the reconciler found that the call took effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	@Override
	public boolean resolveSucceeded(LedgerEntry leased, String resultJson) {
		return this.queue.resolve(leased, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	/**
	 * Resolves a leased row as failed: the reconciler found that the call did not take effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	@Override
	public boolean resolveFailed(LedgerEntry leased, String error) {
		return this.queue.resolve(leased, LedgerStatus.FAILED, null, error);
	}

	/**
	 * Gives a leased row back unresolved, to be taken again after a pause: the reconcile function could not
	 * tell this time.
	 * @return whether the row was given back; {@code false} if the lease was lost or the row settled
	 */
	@Override
	public boolean postpone(LedgerEntry leased, Duration retryAfter) {
		return this.queue.postpone(leased, retryAfter);
	}

	/**
	 * Deletes settled rows (succeeded or failed) settled longer ago than the retention, in batches of
	 * bounded size, each in its own transaction. Unsettled rows are never deleted.
	 * @return how many rows were deleted
	 */
	public long purgeSettled(Duration retention, int batchSize) {
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

	/**
	 * Counts a repeat of the call with this key that was answered without a claim of its own: a caller of a
	 * transactional tool told the call is still in progress because its claim kept losing lock conflicts to
	 * the running call. Counted as {@link #claim} counts a lost claim, and written with the other counts.
	 */
	@Override
	public void recordReplay(IdempotencyKey key) {
		this.replays.record(Objects.requireNonNull(key, "key"));
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
		this.flushing.lock();
		try {
			return this.replayCounts.flush();
		}
		finally {
			this.flushing.unlock();
		}
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

	/**
	 * Unsettled rows as an operator reads them, in the order of their ids: all of them, or those that wait
	 * for a human. {@code io.idempotency.reconcile.Settlements} pages through them.
	 */
	@Override
	public List<CallRecord> unsettled(String tool, Duration olderThan, int awaitingHumanAfter, long afterId,
			int limit) {
		return this.settlements.unsettled(tool, olderThan, awaitingHumanAfter, afterId, limit);
	}

	/** The row of a key as an operator reads it: with its age, its lease and its last settlement by hand. */
	@Override
	public Optional<CallRecord> record(IdempotencyKey key) {
		return this.settlements.record(key);
	}

	/**
	 * Settles a row that waits for a human, by hand; {@code io.idempotency.reconcile.Settlements} checks what
	 * is written and says why a settlement is refused.
	 */
	@Override
	public boolean settle(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error,
			int awaitingHumanAfter, String settledBy, String reason) {
		return this.settlements.settle(key, outcome, resultJson, error, awaitingHumanAfter, settledBy, reason);
	}

	/** Sends a row that waits for a human back to the reconciler, for another try at its next pass. */
	@Override
	public boolean sendBack(IdempotencyKey key, int awaitingHumanAfter, int attempts, String settledBy,
			String reason) {
		return this.settlements.sendBack(key, awaitingHumanAfter, attempts, settledBy, reason);
	}

	/**
	 * How many calls completed after their row had been resolved by someone else, and whose outcome was
	 * therefore not written, since this ledger started.
	 */
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

	/**
	 * How many outcomes wait to be written behind their callers (always {@code 0} where write-behind is off).
	 */
	public int pendingOutcomes() {
		return (this.pending != null) ? this.pending.size() : 0;
	}

	/**
	 * Writes every outcome that waits behind its caller now, without waiting for the rest of its delay, and
	 * returns once each is written (or, where it could not be, logged and left to the reconciler): before reading
	 * the table in a test, or before the heartbeat stops on shutdown (the starter does). Nothing where
	 * write-behind is off.
	 */
	public void writePendingOutcomes() {
		if (this.pending != null) {
			this.pending.flush();
		}
	}

	/**
	 * Writes the outcomes still waiting behind their callers (later ones are written by their callers), flushes
	 * the replay counts still in memory (but those of rows that other transactions still hold), and gives the
	 * heartbeat's connection back to the pool.
	 */
	@Override
	public void close() {
		if (this.pending != null) {
			int left = this.pending.close();
			if (left > 0) {
				logger.atWarn()
					.addKeyValue("idempotency.table", this.table.toString())
					.log("{} call outcomes were still not written when the idempotency ledger (table {}) closed, after"
							+ " {}; their rows stay attempting, and the reconciler settles them", left, this.table,
							PendingOutcomes.CLOSE_TIMEOUT);
			}
		}
		try {
			flushReplayCounts();
		}
		catch (RuntimeException ex) {
			logger.atWarn()
				.setCause(ex)
				.addKeyValue("idempotency.table", this.table.toString())
				.log("Could not flush the replay counts of the idempotency ledger (table {}) on close", this.table);
		}
		finally {
			this.heartbeatConnection.close();
		}
	}

}
