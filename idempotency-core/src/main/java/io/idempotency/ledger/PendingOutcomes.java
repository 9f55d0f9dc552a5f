package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outcomes of calls whose callers have been answered and whose rows are not yet written: a bounded queue
 * that a thread of its own drains in batches, each due once its oldest outcome has waited the delay (or once
 * a batch is full), and a lookup by the id of its row that answers a repeat on this instance meanwhile (the ledger
 * knows which row of a key its latest claim here won). An outcome stays found until the writer has handled it, so
 * a repeat finds it either here or in the table. Each outcome is the row it will be written to, with the
 * outcome's status, result and error.
 */
final class PendingOutcomes {

	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** How long closing waits for the outcomes still queued to be written. */
	static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	/** An outcome, and when it was queued ({@link System#nanoTime()}). */
	private record Queued(LedgerEntry outcome, long queuedAt) {
	}

	private final int capacity;

	private final int batchSize;

	private final long delayNanos;

	private final Consumer<List<LedgerEntry>> writer;

	private final Consumer<LedgerEntry> abandoned;

	/** By the id of the row each is written to: never one claim's outcome for another's of the same key. */
	private final Map<Long, LedgerEntry> byRow = new ConcurrentHashMap<>();

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled when an outcome is queued, and when queueing closes. */
	private final Condition arrived = this.lock.newCondition();

	/** Signalled when a batch has been written. */
	private final Condition batchWritten = this.lock.newCondition();

	/** Guarded by {@link #lock}. */
	private final ArrayDeque<Queued> queued = new ArrayDeque<>();

	/** How many batches are being written now; guarded by {@link #lock}. */
	private int writing;

	/** Guarded by {@link #lock}. */
	private boolean closed;

	private final Thread flusher;

	/**
	 * @param writer writes a batch of outcomes; it tells the ledger of each one it has handled, written or given
	 * up on, and does not throw
	 * @param abandoned told of each outcome of a batch whose writer threw nonetheless: the ledger stops beating
	 * for it, and the reconciler settles its row
	 */
	PendingOutcomes(OutcomeWriteBehind settings, Consumer<List<LedgerEntry>> writer, Consumer<LedgerEntry> abandoned) {
		this.capacity = settings.capacity();
		this.batchSize = settings.batchSize();
		this.delayNanos = settings.delay().toNanos();
		this.writer = writer;
		this.abandoned = abandoned;
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
			this.byRow.put(outcome.id(), outcome);
			this.queued.addLast(new Queued(outcome, System.nanoTime()));
			if (this.queued.size() == 1 || this.queued.size() >= this.batchSize) {
				this.arrived.signal();
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The outcome that waits to be written to the row of this id, or {@code null}. */
	LedgerEntry find(long rowId) {
		return this.byRow.get(rowId);
	}

	/** Forgets an outcome that has been written, or given up on: the table answers from now on. */
	void written(LedgerEntry outcome) {
		this.byRow.remove(outcome.id(), outcome);
	}

	/** How many outcomes wait to be written or are being written. */
	int size() {
		return this.byRow.size();
	}

	/**
	 * Writes every outcome queued before this call, now, on the calling thread, without waiting for their delay,
	 * and waits for the batches being written meanwhile.
	 */
	void flush() {
		while (true) {
			List<Queued> batch;
			this.lock.lock();
			try {
				if (this.queued.isEmpty()) {
					while (this.writing > 0) {
						this.batchWritten.awaitUninterruptibly();
					}
					return;
				}
				batch = takeBatch();
			}
			finally {
				this.lock.unlock();
			}
			write(batch);
		}
	}

	private void flushUntilClosed() {
		List<Queued> batch;
		try {
			while ((batch = nextBatch()) != null) {
				write(batch);
			}
		}
		finally {
			// Stopped otherwise than by close (interrupted): later outcomes are written by their callers, and those
			// queued are written here.
			this.lock.lock();
			try {
				this.closed = true;
			}
			finally {
				this.lock.unlock();
			}
			flush();
		}
	}

	/**
	 * The next batch: waits for an outcome, then until the oldest has waited the delay, a batch is full or the
	 * queue closes; {@code null} once it is closed and empty.
	 */
	private List<Queued> nextBatch() {
		this.lock.lock();
		try {
			while (true) {
				while (this.queued.isEmpty()) {
					if (this.closed) {
						return null;
					}
					this.arrived.awaitUninterruptibly();
				}
				long left = this.queued.peekFirst().queuedAt() + this.delayNanos - System.nanoTime();
				while (left > 0 && this.queued.size() < this.batchSize && !this.closed) {
					left = this.arrived.awaitNanos(left);
				}
				// Empty when a flush on another thread has taken what waited meanwhile.
				if (!this.queued.isEmpty()) {
					return takeBatch();
				}
			}
		}
		catch (InterruptedException ex) {
			// Nobody interrupts this thread but the JVM on its way out: what waits is written by the finally above.
			Thread.currentThread().interrupt();
			return null;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Takes up to a batch off the queue, counted as being written; called holding the lock. */
	private List<Queued> takeBatch() {
		List<Queued> batch = new ArrayList<>(Math.min(this.queued.size(), this.batchSize));
		while (batch.size() < this.batchSize && !this.queued.isEmpty()) {
			batch.add(this.queued.removeFirst());
		}
		this.writing++;
		return batch;
	}

	private void write(List<Queued> batch) {
		List<LedgerEntry> outcomes = batch.stream().map(Queued::outcome).toList();
		try {
			this.writer.accept(outcomes);
		}
		catch (Throwable ex) {
			// The writer handles every outcome's failure: this is a defect, or the JVM running out of memory. The
			// rows stay attempting and, no longer beaten for, are settled by the reconciler.
			logger.atError().setCause(ex).log("Could not write {} call outcomes; the reconciler will settle them",
					outcomes.size());
			for (LedgerEntry outcome : outcomes) {
				this.abandoned.accept(outcome);
			}
		}
		finally {
			this.lock.lock();
			try {
				this.writing--;
				this.batchWritten.signalAll();
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	/**
	 * Stops queueing (later outcomes are written by their callers) and waits for every queued outcome to be
	 * written, for {@link #CLOSE_TIMEOUT} at most; closing again returns at once.
	 * @return how many outcomes were still not written when it stopped waiting
	 */
	int close() {
		boolean again;
		this.lock.lock();
		try {
			again = this.closed;
			this.closed = true;
			this.arrived.signalAll();
		}
		finally {
			this.lock.unlock();
		}
		if (!again) {
			awaitFlusher();
		}
		return this.flusher.isAlive() ? size() : 0;
	}

	/**
	 * Waits for the writer's thread to end, for {@link #CLOSE_TIMEOUT} at most, even on a thread that is
	 * interrupted (a shutdown's may be): what waits is written before the heartbeat stops. The interrupt is kept.
	 */
	private void awaitFlusher() {
		boolean interrupted = false;
		long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
		long left;
		while (this.flusher.isAlive() && (left = deadline - System.nanoTime()) > 0) {
			try {
				this.flusher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
