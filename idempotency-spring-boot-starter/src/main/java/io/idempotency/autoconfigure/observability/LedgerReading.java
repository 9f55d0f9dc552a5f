package io.idempotency.autoconfigure.observability;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Counts of the ledger read once at a time and reused for {@code cacheFor}, for the probes of health and the
 * scrapes of a gauge. A reading runs on a thread of its own through {@link LedgerReads}, so it holds one
 * connection for at most about the timeout; the caller that starts it waits for it at most the timeout. While it
 * runs, other callers answer from the last reading at once, or, before the first, wait for it as long. However
 * many probes arrive while the table is locked, one connection of the pool reads it, and each probe waits for
 * the counts at most the timeout, even where the driver does not interrupt the reading's wait.
 */
final class LedgerReading<T> {

	/**
	 * The last reading.
	 * @param age how long ago it was started
	 * @param late whether a newer reading did not answer within the timeout: the value is stale
	 */
	record Reading<T>(T value, Duration age, boolean late) {
	}

	private final LedgerReads reads;

	private final Supplier<T> reading;

	private final long cacheNanos;

	private final long timeoutNanos;

	private final String threadName;

	// Guarded by this.
	private T last;

	private long lastAt;

	private boolean read;

	private Flight<T> flight;

	LedgerReading(LedgerReads reads, Supplier<T> reading, Duration cacheFor, String threadName) {
		this.reads = reads;
		this.reading = reading;
		this.cacheNanos = cacheFor.toNanos();
		this.timeoutNanos = reads.timeout().toNanos();
		this.threadName = threadName;
	}

	/**
	 * The last reading while it is younger than {@code cacheFor}; else a new one, or the last marked late
	 * where the new one does not answer within the timeout.
	 * @throws LedgerReads.NotAnswered if there is no reading yet and the one in flight did not answer in time
	 * @throws RuntimeException the reading's own failure, where it failed otherwise
	 */
	Reading<T> get() {
		Flight<T> waitFor;
		synchronized (this) {
			long now = System.nanoTime();
			if (this.read && now - this.lastAt <= this.cacheNanos) {
				return last(now, false);
			}
			if (this.flight == null) {
				this.flight = start(now);
				waitFor = this.flight;
			}
			else if (this.read) {
				return last(now, now - this.flight.startedAt > this.timeoutNanos);
			}
			else {
				waitFor = this.flight;
			}
		}
		return await(waitFor);
	}

	private Reading<T> await(Flight<T> flight) {
		Throwable notAnswered;
		try {
			long left = flight.startedAt + this.timeoutNanos - System.nanoTime();
			T value = flight.result.get(Math.max(left, 0), TimeUnit.NANOSECONDS);
			return new Reading<>(value, Duration.ofNanos(System.nanoTime() - flight.startedAt), false);
		}
		catch (TimeoutException ex) {
			notAnswered = ex;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			notAnswered = ex;
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof LedgerReads.NotAnswered)) {
				throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException(ex.getCause());
			}
			notAnswered = ex.getCause();
		}
		synchronized (this) {
			if (this.read) {
				return last(System.nanoTime(), true);
			}
		}
		throw (notAnswered instanceof LedgerReads.NotAnswered answered) ? answered
				: this.reads.notAnswered(notAnswered);
	}

	private Reading<T> last(long now, boolean late) {
		return new Reading<>(this.last, Duration.ofNanos(now - this.lastAt), late);
	}

	private Flight<T> start(long now) {
		Flight<T> started = new Flight<>(now);
		Thread thread = new Thread(() -> run(started), this.threadName);
		thread.setDaemon(true);
		thread.start();
		return started;
	}

	private void run(Flight<T> flight) {
		try {
			T value = this.reads.read(this.reading);
			synchronized (this) {
				if (!this.read || flight.startedAt - this.lastAt > 0) {
					this.last = value;
					this.lastAt = flight.startedAt;
					this.read = true;
				}
				this.flight = null;
			}
			flight.result.complete(value);
		}
		catch (Throwable ex) {
			synchronized (this) {
				this.flight = null;
			}
			flight.result.completeExceptionally(ex);
		}
	}

	/** A reading in progress. */
	private static final class Flight<T> {

		final CompletableFuture<T> result = new CompletableFuture<>();

		final long startedAt;

		Flight(long startedAt) {
			this.startedAt = startedAt;
		}

	}

}
