package io.idempotency.ledger;

import java.lang.reflect.Method;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.util.ReflectionUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

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
 * <p>Thread-safe. {@link #close()} flushes the replay counts that are still in memory.
 */
public final class JdbcLedger implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(JdbcLedger.class);

	/** The longest error text stored; longer ones are cut. */
	public static final int MAX_ERROR_LENGTH = 4000;

	/** How often a claim on the ledger's own connection is made when it loses a lock conflict. */
	private static final int CLAIM_ATTEMPTS = 6;

	/** The longest pause before a claim that lost a lock conflict is made again; each pause is random below it. */
	private static final long CLAIM_BACKOFF_MILLIS = 10;

	private static final int REPLAY_COUNT_CAPACITY = 100_000;

	private static final int HEARTBEAT_BATCH = 100;

	private static final int[] CLAIM_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR,
			Types.VARCHAR };

	private static final int[] CLAIM_TYPES_WITH_KEY_TWICE = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR,
			Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };

	/** Status, result, error, and the key or row id: every null typed, so no driver asks the server what it is. */
	private static final int[] OUTCOME_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };

	private static final int[] OVERTURN_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };


	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final OwnTransactions transactions;

	private final LedgerRows rows;

	private final ReconcileQueue queue;

	private final LedgerQueries queries;

	private final LedgerDialect dialect;

	private final TableName table;

	private final LedgerStatements sql;

	private final Redaction redaction;

	private final ReplayCounter replays;

	private final AtomicLong lateCompletions;

	private final AtomicLong lateSuccesses;

	private final HeartbeatConnection heartbeatConnection;

	/** Keys of calls claimed here whose outcome is not yet recorded: this instance is executing them. */
	private final Set<IdempotencyKey> inFlight;

	private final boolean joinCallersTransaction;

	private final SettledOutcomes settled;

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
	 * A ledger on the given table that answers repeats of settled calls it has read from memory, as the
	 * cache allows.
	 * @param tableName the table, optionally schema-qualified; checked as an SQL identifier
	 * @param redaction what to remove from arguments before they are stored
	 * @param replayCache how many settled outcomes to keep in memory, and for how long
	 * @throws IllegalArgumentException if the table name is not a valid SQL identifier
	 * @throws IllegalStateException if the database is not supported
	 */
	public JdbcLedger(DataSource dataSource, String tableName, Redaction redaction, ReplayCache replayCache) {
		Objects.requireNonNull(dataSource, "dataSource");
		this.settled = new SettledOutcomes(Objects.requireNonNull(replayCache, "replayCache"));
		this.table = TableName.of(tableName);
		this.redaction = Objects.requireNonNull(redaction, "redaction");
		this.dataSource = dataSource;
		this.dialect = dialectOf(dataSource);
		this.sql = new LedgerStatements(this.dialect, this.table);
		this.jdbc = new JdbcTemplate(dataSource);
		this.jdbc.setExceptionTranslator(DatabaseErrors.translator(this.jdbc.getExceptionTranslator()));
		this.transactions = new OwnTransactions(dataSource, this.jdbc);
		this.rows = new LedgerRows(this.dialect);
		this.queue = new ReconcileQueue(this.jdbc, this.sql, this.dialect, this.rows, this.transactions);
		this.queries = new LedgerQueries(this.jdbc, this.sql, this.rows);
		this.replays = new ReplayCounter(REPLAY_COUNT_CAPACITY);
		this.lateCompletions = new AtomicLong();
		this.lateSuccesses = new AtomicLong();
		this.heartbeatConnection = new HeartbeatConnection(dataSource, this.jdbc.getExceptionTranslator());
		this.inFlight = ConcurrentHashMap.newKeySet();
		this.joinCallersTransaction = false;
	}

	private JdbcLedger(JdbcLedger ledger, boolean joinCallersTransaction) {
		this.dataSource = ledger.dataSource;
		this.jdbc = ledger.jdbc;
		this.transactions = ledger.transactions;
		this.rows = ledger.rows;
		this.queue = ledger.queue;
		this.queries = ledger.queries;
		this.dialect = ledger.dialect;
		this.table = ledger.table;
		this.sql = ledger.sql;
		this.redaction = ledger.redaction;
		this.replays = ledger.replays;
		this.lateCompletions = ledger.lateCompletions;
		this.lateSuccesses = ledger.lateSuccesses;
		this.heartbeatConnection = ledger.heartbeatConnection;
		this.inFlight = ledger.inFlight;
		this.settled = ledger.settled;
		this.joinCallersTransaction = joinCallersTransaction;
	}

	/**
	 * This ledger, writing in the caller's transaction instead of committing on its own: for tools whose
	 * claim, effect and outcome must commit or roll back together. Use it only inside a transaction on this
	 * ledger's {@code DataSource}, at isolation read committed. Replay counts and late completions are
	 * shared with this ledger.
	 */
	public JdbcLedger inCallersTransaction() {
		return new JdbcLedger(this, true);
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
		DataSource managed = managedDataSource(transactionManager);
		return managed != null && boundAs(managed) == boundAs(this.dataSource);
	}

	/**
	 * The object a {@code DataSource}'s connections are bound to transactions by: a transaction-aware proxy's
	 * target (its connections join the target's transactions, as a {@code DataSourceTransactionManager} of the
	 * proxy binds the target), else the {@code DataSource} itself, as Spring unwraps resources.
	 */
	private static Object boundAs(DataSource dataSource) {
		DataSource target = dataSource;
		while (target instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
			target = proxy.getTargetDataSource();
		}
		return TransactionSynchronizationUtils.unwrapResourceIfNecessary(target);
	}

	/** The {@code DataSource} whose connections a transaction manager binds to its transactions, if one. */
	static DataSource managedDataSource(PlatformTransactionManager transactionManager) {
		if (transactionManager instanceof ResourceTransactionManager resources
				&& resources.getResourceFactory() instanceof DataSource dataSource) {
			return dataSource;
		}
		// JpaTransactionManager and HibernateTransactionManager: their resource is the EntityManagerFactory or
		// SessionFactory, and they bind the connection of their DataSource besides, named so.
		Method getDataSource = (transactionManager != null)
				? ReflectionUtils.findMethod(transactionManager.getClass(), "getDataSource") : null;
		if (getDataSource != null && getDataSource.getParameterCount() == 0
				&& DataSource.class.isAssignableFrom(getDataSource.getReturnType())) {
			return (DataSource) ReflectionUtils.invokeMethod(getDataSource, transactionManager);
		}
		return null;
	}

	/** What this ledger removes from arguments before it stores them. */
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
	public Claim claim(ClaimRequest request) {
		LedgerEntry kept = this.settled.find(request.key());
		if (kept != null) {
			return counted(answerFrom(kept, request), request);
		}
		String storedArguments = this.redaction.redact(request.arguments(), request.sensitiveNames());
		Claim claim = claimCommitted(request, storedArguments);
		if (claim instanceof Claim.Won && !this.joinCallersTransaction) {
			// Claimed and committed: until its outcome is recorded, this instance beats for it. A claim in the
			// caller's transaction is invisible to others until it commits with its outcome.
			this.inFlight.add(request.key());
		}
		else if (!this.joinCallersTransaction) {
			// Read on a connection of the ledger's own, so committed: a settled row is final and may be kept.
			// A row read in the caller's transaction may be its own, and may yet roll back.
			answered(claim).ifPresent(this.settled::keep);
		}
		return counted(claim, request);
	}

	/**
	 * The claim, committed on the ledger's own connection; a claim that loses a deadlock or a lock wait
	 * (MariaDB's and MySQL's unique-index locks, under concurrent inserts, outcomes, transactional tools and
	 * retention's deletes) was rolled back whole by the database. It may have lost on a row that is already
	 * there and committed: a plain read, which takes no lock and so cannot lose again, answers from that row.
	 * Where there is none, the claim is made again, a few times, each after a short random pause that lets the
	 * transaction it lost to finish: made again at once, it lost to the same one again. In the caller's
	 * transaction the whole transaction is gone, so that is the caller's to retry.
	 */
	private Claim claimCommitted(ClaimRequest request, String storedArguments) {
		for (int attempt = 1;; attempt++) {
			try {
				return committed(() -> claimOnce(request, storedArguments));
			}
			catch (PessimisticLockingFailureException ex) {
				if (this.joinCallersTransaction) {
					throw ex;
				}
				Optional<Claim> lostTo = committed(() -> findClaimed(request, storedArguments));
				if (lostTo.isPresent()) {
					return lostTo.get();
				}
				// A lock wait that timed out waited long already, on a holder that still runs: no second wait.
				if (attempt >= CLAIM_ATTEMPTS || DatabaseErrors.isLockWaitTimeout(ex)) {
					throw ex;
				}
				logger.debug("The claim of " + request.key() + " lost a lock conflict and is made again: " + ex);
				pauseBeforeClaimingAgain(attempt, ex);
			}
		}
	}

	private static void pauseBeforeClaimingAgain(int attempt, PessimisticLockingFailureException lost) {
		try {
			Thread.sleep(ThreadLocalRandom.current().nextLong(1, attempt * CLAIM_BACKOFF_MILLIS + 1));
		}
		catch (InterruptedException ex) {
			// Nothing was claimed: stop here, as the claim that lost.
			Thread.currentThread().interrupt();
			throw lost;
		}
	}

	private Claim counted(Claim claim, ClaimRequest request) {
		if (!(claim instanceof Claim.Won) && !(claim instanceof Claim.HeldByAnotherUser)) {
			this.replays.record(request.key());
		}
		return claim;
	}

	private static Optional<LedgerEntry> answered(Claim claim) {
		if (claim instanceof Claim.Replay replay) {
			return Optional.of(replay.entry());
		}
		if (claim instanceof Claim.PreviousAttemptFailed failed) {
			return Optional.of(failed.entry());
		}
		return Optional.empty();
	}

	private Claim claimOnce(ClaimRequest request, String storedArguments) {
		// A row can vanish between the losing insert and the read (purged, or rolled back by its owner's
		// transaction); then the key is free again and the claim is tried anew.
		for (int attempt = 0; attempt < 3; attempt++) {
			Optional<Claim> claim = this.dialect.claimReadsTheRowItLosesTo() ? claimAndRead(request, storedArguments)
					: claimThenRead(request, storedArguments);
			if (claim.isPresent()) {
				return claim.get();
			}
		}
		throw new IllegalStateException("The claim of " + request.key() + " neither won nor found the row it lost to");
	}

	/** One statement that inserts the claim or reads the row it loses to. */
	private Optional<Claim> claimAndRead(ClaimRequest request, String storedArguments) {
		Object[] values = { request.key().value(), request.key().value(), request.runId(), request.userId(),
				request.tool(), storedArguments };
		Optional<Claim> claim = this.jdbc.query(this.sql.claim, values, CLAIM_TYPES_WITH_KEY_TWICE,
				(ResultSet row) -> {
					row.next();
					// Columns by position: won_id, then the answer columns.
					row.getLong(1);
					if (!row.wasNull()) {
						return Optional.of(new Claim.Won(request.key()));
					}
					row.getLong(2);
					return row.wasNull() ? Optional.<Claim>empty()
							: Optional.of(answerFrom(this.rows.answerEntry(row, 2, request, storedArguments), request));
				});
		if (claim.isPresent()) {
			return claim;
		}
		// The read found no row, yet the insert lost: a concurrent claim committed after this statement's
		// snapshot was taken, and the insert, which sees it, stood back. Read it in a statement of its own.
		return findClaimed(request, storedArguments);
	}

	/** An insert that inserts nothing, or fails on the unique key, when it loses, and a read when it has lost. */
	private Optional<Claim> claimThenRead(ClaimRequest request, String storedArguments) {
		if (insert(request, storedArguments)) {
			return Optional.of(new Claim.Won(request.key()));
		}
		return findClaimed(request, storedArguments);
	}

	private Optional<Claim> findClaimed(ClaimRequest request, String storedArguments) {
		return this.jdbc.query(this.sql.findClaimed, (row, n) -> this.rows.answerEntry(row, 1, request, storedArguments),
				request.key().value()).stream().findFirst().map((entry) -> answerFrom(entry, request));
	}

	private boolean insert(ClaimRequest request, String storedArguments) {
		boolean keyAgain = this.dialect.claimTakesTheKeyAgainLast();
		Object[] values = keyAgain
				? new Object[] { request.key().value(), request.runId(), request.userId(), request.tool(),
						storedArguments, request.key().value() }
				: new Object[] { request.key().value(), request.runId(), request.userId(), request.tool(),
						storedArguments };
		try {
			return this.jdbc.update(this.sql.claim, values, keyAgain ? CLAIM_TYPES_WITH_KEY_TWICE : CLAIM_TYPES) == 1;
		}
		catch (DuplicateKeyException lost) {
			return false;
		}
	}

	private Claim answerFrom(LedgerEntry existing, ClaimRequest request) {
		if (!Objects.equals(existing.userId(), request.userId())) {
			logger.warn("A call of tool '" + request.tool() + "' in run '" + request.runId() + "' lost its claim on key "
					+ request.key() + " to a row of another user; refusing it without revealing that row. Two users"
					+ " sharing a run id is a bug in the application or an attack.");
			return new Claim.HeldByAnotherUser(request.key());
		}
		return switch (existing.status()) {
			case SUCCEEDED -> new Claim.Replay(existing);
			case FAILED -> new Claim.PreviousAttemptFailed(existing);
			case ATTEMPTING, UNKNOWN -> new Claim.InProgress(existing);
		};
	}

	/**
	 * Records that the claimed call returned. Only the attempt that holds the claim may: if the row is no
	 * longer attempting, the outcome someone else recorded meanwhile stays, and the late completion is logged
	 * and counted; with one exception. When a reconciler resolved the call {@code failed} while it was still
	 * running (its instance paused too long to beat, say), that {@code failed} only meant "no effect found
	 * yet": the success is written over it, with its result, and counted as a {@linkplain #lateSuccesses()
	 * late success}.
	 * @param resultJson the result as JSON ({@code "null"} for a tool that returned null), or {@code null}
	 * for a tool that returns nothing
	 * @return whether the outcome was recorded; {@code false} for a late completion that was not written
	 */
	public boolean recordSucceeded(IdempotencyKey key, String resultJson) {
		return recordOutcome(key, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	/**
	 * Records that the claimed call returned, but that its result cannot be stored (it cannot be written as
	 * JSON, say). A repeat is answered as done, without a result: never with a {@code null} that would pass
	 * for one.
	 * @param reason why the result is not stored, kept in the row's error column
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	public boolean recordSucceededWithoutResult(IdempotencyKey key, String reason) {
		return recordOutcome(key, LedgerStatus.SUCCEEDED, null, reason);
	}

	/**
	 * Records that the claimed call definitely did not take effect. A repeat of it is answered as a
	 * previous failure and not executed.
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	public boolean recordFailed(IdempotencyKey key, String error) {
		return recordOutcome(key, LedgerStatus.FAILED, null, error);
	}

	/**
	 * Records that the claimed call ended without telling whether it took effect (a timeout, an I/O error).
	 * The reconciler resolves it.
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	public boolean recordUnknown(IdempotencyKey key, String error) {
		return recordOutcome(key, LedgerStatus.UNKNOWN, null, error);
	}

	private boolean recordOutcome(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error) {
		int updated;
		// A call that claimed here and has recorded nothing yet still holds its claim.
		boolean holdsClaim = this.inFlight.contains(key);
		try {
			updated = committed(() -> this.jdbc.update(this.sql.recordOutcome,
					new Object[] { outcome.columnValue(), resultJson, LedgerRows.truncate(error), key.value() }, OUTCOME_TYPES));
			if (updated == 0 && outcome == LedgerStatus.SUCCEEDED && holdsClaim && !this.joinCallersTransaction) {
				// Only a reconciler (or a person) can have settled a row whose claim this call holds: a failure
				// it wrote meant that no effect was found while the call still ran. The effect is here.
				int overturned = committed(() -> this.jdbc.update(this.sql.overturnFailure,
						new Object[] { resultJson, LedgerRows.truncate(error), key.value() }, OVERTURN_TYPES));
				if (overturned == 1) {
					this.lateSuccesses.incrementAndGet();
					this.settled.forget(key);
					logger.warn("Late success of key " + key + ": its ledger row had been resolved failed while the call"
							+ " still ran (no effect was found then); the success is recorded over it");
					return true;
				}
			}
		}
		finally {
			// Recorded or not, the call has ended here: a row left attempting is the reconciler's, not ours.
			this.inFlight.remove(key);
		}
		if (updated == 1) {
			return true;
		}
		this.lateCompletions.incrementAndGet();
		String found = find(key).map((entry) -> "is already " + entry.status().columnValue()).orElse("no longer exists");
		logger.warn("Late completion of key " + key + ": the call ended " + outcome.columnValue()
				+ ", but its ledger row " + found + "; the row is left as it is");
		return false;
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
		List<IdempotencyKey> keys = new ArrayList<>(this.inFlight);
		int marked = 0;
		for (int from = 0; from < keys.size(); from += HEARTBEAT_BATCH) {
			List<String> batch = keys.subList(from, Math.min(keys.size(), from + HEARTBEAT_BATCH))
				.stream()
				.map(IdempotencyKey::value)
				.toList();
			marked += this.heartbeatConnection.update(this.sql.heartbeat(batch.size()), batch);
		}
		return marked;
	}

	/** How many calls this ledger claimed whose outcome is not yet recorded: the calls it beats for. */
	public int inFlight() {
		return this.inFlight.size();
	}

	/** The row of a key, if there is one. */
	public Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.jdbc.query(this.sql.findByKey, this.rows::entry, key.value()).stream().findFirst();
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
	public List<LedgerEntry> leaseStaleOf(Set<String> tools, Duration olderThan, int limit, Duration leaseFor) {
		return this.queue.leaseStaleOf(tools, olderThan, limit, leaseFor);
	}

	/** As {@link #leaseStale(Duration, int, Duration)}, for the rows of all tools but the given ones. */
	public List<LedgerEntry> leaseStaleExcept(Set<String> tools, Duration olderThan, int limit, Duration leaseFor) {
		return this.queue.leaseStaleExcept(tools, olderThan, limit, leaseFor);
	}

	/**
	 * Resolves a leased row as succeeded: the reconciler found that the call took effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	public boolean resolveSucceeded(LedgerEntry leased, String resultJson) {
		return this.queue.resolve(leased, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	/**
	 * Resolves a leased row as failed: the reconciler found that the call did not take effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	public boolean resolveFailed(LedgerEntry leased, String error) {
		return this.queue.resolve(leased, LedgerStatus.FAILED, null, error);
	}

	/**
	 * Gives a leased row back unresolved, to be taken again after a pause: the reconcile function could not
	 * tell this time.
	 * @return whether the row was given back; {@code false} if the lease was lost or the row settled
	 */
	public boolean postpone(LedgerEntry leased, Duration retryAfter) {
		return this.queue.postpone(leased, retryAfter);
	}

	/**
	 * Deletes settled rows (succeeded or failed) started longer ago than the retention, in batches of
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
			deleted = committed(() -> this.jdbc.update(this.sql.purgeSettled, LedgerRows.micros(retention), batchSize));
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
	public void recordReplay(IdempotencyKey key) {
		this.replays.record(Objects.requireNonNull(key, "key"));
	}

	/**
	 * Writes the replay counts held in memory to their rows, in one batch. Call it regularly (the starter
	 * schedules it) and on shutdown.
	 * @return how many keys' counts were written
	 */
	public int flushReplayCounts() {
		List<ReplayCounter.Pending> counts = this.replays.drain();
		if (counts.isEmpty()) {
			return 0;
		}
		try {
			this.transactions.executeWithoutResult((status) -> this.jdbc.batchUpdate(this.sql.addReplays, counts,
					counts.size(), (statement, count) -> {
						statement.setLong(1, count.replays());
						statement.setString(2, count.key().value());
					}));
			return counts.size();
		}
		catch (RuntimeException ex) {
			this.replays.restore(counts);
			throw ex;
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
	 * How many calls completed after their row had been resolved by someone else, and whose outcome was
	 * therefore not written, since this ledger started.
	 */
	public long lateCompletions() {
		return this.lateCompletions.get();
	}

	/**
	 * How many calls succeeded after a reconciler had resolved them {@code failed} while they still ran, and
	 * had their success written over that failure, since this ledger started.
	 */
	public long lateSuccesses() {
		return this.lateSuccesses.get();
	}

	/** How many replays went uncounted because too many distinct keys waited for a flush. */
	public long droppedReplayCounts() {
		return this.replays.dropped();
	}

	/** Flushes the replay counts still in memory, and gives the heartbeat's connection back to the pool. */
	@Override
	public void close() {
		try {
			flushReplayCounts();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not flush the replay counts of the idempotency ledger on close", ex);
		}
		finally {
			this.heartbeatConnection.close();
		}
	}

	/** Ledger statements committed when this returns (see {@link OwnTransactions}); as they are, in the caller's. */
	private <T> T committed(Supplier<T> statements) {
		return this.joinCallersTransaction ? statements.get() : this.transactions.committed(statements);
	}

}
