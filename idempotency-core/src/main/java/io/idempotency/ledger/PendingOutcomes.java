package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.idempotency.key.IdempotencyKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcomes of calls whose callers have been answered and whose rows are not yet written: a bounded queue
 * that a thread of its own drains in batches, and a lookup by key that answers a repeat on this instance
 * meanwhile. An outcome stays found until the writer has {@linkplain #written(LedgerEntry) handled it}, so a
 * repeat finds it either here or in the table. Each outcome is the row it will be written to, with the
 * outcome's status, result and error.
 */
final class PendingOutcomes {

	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** How long closing waits for the outcomes still queued to be written. */
	static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	private final int capacity;

	private final int batchSize;

	private final long delayNanos;

	private final Consumer<List<LedgerEntry>> writer;

	private final Map<IdempotencyKey, LedgerEntry> byKey = new ConcurrentHashMap<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition arrived = this.lock.newCondition();

	/** Guarded by {@link #lock}. */
	private final ArrayDeque<LedgerEntry> queued = new ArrayDeque<>();

	/** Guarded by {@link #lock}. */
	private boolean closed;

	private final Thread flusher;

	/**
	 * @param writer writes a batch of outcomes and calls {@link #written} for each, whatever became of it; it
	 * does not throw
	 */
	PendingOutcomes(OutcomeWriteBehind settings, Consumer<List<LedgerEntry>> writer) {
		this.capacity = settings.capacity();
		this.batchSize = settings.batchSize();
		this.delayNanos = settings.delay().toNanos();
		this.writer = writer;
		// A platform thread that never keeps the JVM alive: an outcome lost to an exit is a row left attempting,
		// which the reconciler settles.
		this.flusher = new Thread(this::flushUntilClosed, "idempotency-outcomes");
		this.flusher.setDaemon(true);
		this.flusher.start();
	}

	/**
	 * Queues an outcome to be written. {@code false} when the queue is full or closed: then the caller writes it
	 * itself.
	 */
	boolean offer(LedgerEntry outcome) {
		this.lock.lock();
		try {
			if (this.closed || this.queued.size() >= this.capacity) {
				return false;
			}
			this.byKey.put(outcome.key(), outcome);
			this.queued.addLast(outcome);
			if (this.queued.size() == 1 || this.queued.size() >= this.batchSize) {
				this.arrived.signal();
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The outcome of this key that waits to be written, or {@code null}. */
	LedgerEntry find(IdempotencyKey key) {
		return this.byKey.get(key);
	}

	/** Forgets an outcome that has been written, or that the writer gave up on: the table answers from now on. */
	void written(LedgerEntry outcome) {
		this.byKey.remove(outcome.key(), outcome);
	}

	/** How many outcomes wait to be written or are being written. */
	int size() {
		return this.byKey.size();
	}

	private void flushUntilClosed() {
		List<LedgerEntry> batch;
		try {
			while ((batch = nextBatch()) != null) {
				write(batch);
			}
		}
		finally {
			// Stopped otherwise than by close (interrupted): later outcomes are written by their callers, and those
			// queued are written here.
			List<LedgerEntry> rest;
			this.lock.lock();
			try {
				this.closed = true;
				rest = new ArrayList<>(this.queued);
				this.queued.clear();
			}
			finally {
				this.lock.unlock();
			}
			if (!rest.isEmpty()) {
				write(rest);
			}
		}
	}

	private void write(List<LedgerEntry> batch) {
		try {
			this.writer.accept(batch);
		}
		catch (RuntimeException ex) {
			// The writer handles every outcome's failure; this is a defect. The rows stay attempting and stop
			// beating: the reconciler settles them.
			logger.atError().setCause(ex).log("Could not write {} call outcomes; the reconciler will settle them",
					batch.size());
			batch.forEach(this::written);
		}
	}

	/**
	 * The next batch: waits for an outcome, then up to the delay for more, or until a batch is full or the queue
	 * closes; {@code null} once it is closed and empty.
	 */
	private List<LedgerEntry> nextBatch() {
		this.lock.lock();
		try {
			while (this.queued.isEmpty()) {
				if (this.closed) {
					return null;
				}
				this.arrived.awaitUninterruptibly();
			}
			long left = this.delayNanos;
			while (left > 0 && this.queued.size() < this.batchSize && !this.closed) {
				left = this.arrived.awaitNanos(left);
			}
			List<LedgerEntry> batch = new ArrayList<>(Math.min(this.queued.size(), this.batchSize));
			while (batch.size() < this.batchSize && !this.queued.isEmpty()) {
				batch.add(this.queued.removeFirst());
			}
			return batch;
		}
		catch (InterruptedException ex) {
			// Nobody interrupts this thread but the JVM on its way out: what waits is left to the reconciler.
			Thread.currentThread().interrupt();
			return null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops queueing (later outcomes are written by their callers) and waits for every queued outcome to be
	 * written, for {@link #CLOSE_TIMEOUT} at most.
	 * @return how many outcomes were still not written when it stopped waiting
	 */
	int close() {
		this.lock.lock();
		try {
			this.closed = true;
			this.arrived.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		try {
			this.flusher.join(CLOSE_TIMEOUT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.flusher.isAlive() ? size() : 0;
	}

}
