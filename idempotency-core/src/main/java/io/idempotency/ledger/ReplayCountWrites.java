package io.idempotency.ledger;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Writes the replay counts held in memory to their rows, without ever waiting on a row lock. Each batch of keys
 * first locks the rows that are free ({@code FOR UPDATE SKIP LOCKED}), then adds the counts to those, in one
 * transaction of the ledger's own. A row that another transaction holds is left alone and its count kept for
 * the next flush: a transactional call's row, whose insert is not committed until its tool returns (InnoDB's
 * locking read would wait on it, for up to its lock wait timeout, 50 seconds by default; PostgreSQL's and H2's
 * writes do not see it, and would lose the count), a row a repeat's transaction locked when its claim lost,
 * or one whose outcome is being written. A flush therefore never waits for anything but a connection, is never
 * part of a deadlock, and holds up another writer of its rows (an outcome, a claim) only as long as its own
 * short transaction.
 */
final class ReplayCountWrites {

	/** Under the ledger's category: operators know its counts not flushed on close by it. */
	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** The most keys a statement locks, and a transaction writes. */
	static final int BATCH = 100;

	private final JdbcTemplate jdbc;

	private final LedgerStatements sql;

	private final OwnTransactions transactions;

	private final ReplayCounter replays;

	private final TableName table;

	/** One flush of the replay counts at a time: a flush returns once those drained before it are written. */
	private final ReentrantLock flushing = new ReentrantLock();

	ReplayCountWrites(LedgerDatabase database, ReplayCounter replays) {
		this.jdbc = database.jdbc();
		this.sql = database.sql();
		this.transactions = database.transactions();
		this.table = database.table();
		this.replays = replays;
	}

	/**
	 * Writes every count held, but those whose rows are held by other transactions, or are not there (yet):
	 * those are kept for the next flush. Where a batch fails, its counts and those of the batches after it are
	 * put back, and the failure thrown. A flush running on another thread is waited for first.
	 * @return how many keys' counts were written
	 */
	int flush() {
		this.flushing.lock();
		try {
			return flushCounts();
		}
		finally {
			this.flushing.unlock();
		}
	}

	/** As {@link #flush()}, when the ledger closes: a failure is logged, not thrown. */
	void flushOnClose() {
		try {
			flush();
		}
		catch (RuntimeException ex) {
			logger.atWarn()
				.setCause(ex)
				.addKeyValue("idempotency.table", this.table.toString())
				.log("Could not flush the replay counts of the idempotency ledger (table {}) on close", this.table);
		}
	}

	private int flushCounts() {
		List<ReplayCounter.Pending> counts = this.replays.drain();
		int written = 0;
		for (int from = 0; from < counts.size(); from += BATCH) {
			List<ReplayCounter.Pending> batch = counts.subList(from, Math.min(counts.size(), from + BATCH));
			List<ReplayCounter.Pending> done;
			try {
				done = this.transactions.execute((status) -> writeFreeRows(batch));
			}
			catch (RuntimeException ex) {
				this.replays.restore(counts.subList(from, counts.size()));
				throw ex;
			}
			this.replays.written(done);
			if (done.size() < batch.size()) {
				List<ReplayCounter.Pending> held = new ArrayList<>(batch);
				held.removeAll(done);
				this.replays.keepUnwritten(held);
			}
			written += done.size();
		}
		return written;
	}

	/** Locks the rows of the batch that are free, and adds their counts; answers the counts written. */
	private List<ReplayCounter.Pending> writeFreeRows(List<ReplayCounter.Pending> batch) {
		Set<String> locked = new HashSet<>(this.jdbc.queryForList(this.sql.lockReplayRows(batch.size()), String.class,
				batch.stream().map((count) -> count.key().value()).toArray()));
		List<ReplayCounter.Pending> free = batch.stream().filter((count) -> locked.contains(count.key().value())).toList();
		if (!free.isEmpty()) {
			// Rows this transaction holds already: the update waits on nothing.
			this.jdbc.batchUpdate(this.sql.addReplays, free, free.size(), (statement, count) -> {
				statement.setLong(1, count.replays());
				statement.setString(2, count.key().value());
			});
		}
		return free;
	}

}
