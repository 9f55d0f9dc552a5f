package io.idempotency.ledger;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import io.idempotency.key.IdempotencyKey;

/**
 * The succeeded rows this instance has read, by key, bounded in number and age: what answers a repeat
 * without the database. Only a success is final: a failure a reconciler recorded is overturned by a late
 * success, written by whichever instance ran the call, which no other instance would learn of; so a failure
 * is read from the table on every repeat. Looking up takes no lock; keeping takes one, and happens only when a
 * repeat was answered by the database. The oldest kept is the first to go.
 */
final class SettledOutcomes {

	private record Kept(LedgerEntry entry, long keptAt) {
	}

	private final int maximumEntries;

	private final long timeToLiveNanos;

	private final LongSupplier nanoTime;

	private final Map<IdempotencyKey, Kept> kept = new ConcurrentHashMap<>();

	/** Every key in {@link #kept}, once, oldest first; guarded by this. */
	private final ArrayDeque<IdempotencyKey> order = new ArrayDeque<>();

	SettledOutcomes(ReplayCache cache) {
		this(cache, System::nanoTime);
	}

	SettledOutcomes(ReplayCache cache, LongSupplier nanoTime) {
		this.maximumEntries = cache.maximumEntries();
		this.timeToLiveNanos = cache.timeToLive().toNanos();
		this.nanoTime = nanoTime;
	}

	/** The settled row kept for this key and not yet expired, or {@code null}. */
	LedgerEntry find(IdempotencyKey key) {
		if (this.maximumEntries == 0) {
			return null;
		}
		Kept found = this.kept.get(key);
		if (found == null || this.nanoTime.getAsLong() - found.keptAt() >= this.timeToLiveNanos) {
			return null;
		}
		return found.entry();
	}

	/** Keeps a row read as committed, if it succeeded; a row of any other status can still change. */
	void keep(LedgerEntry entry) {
		if (this.maximumEntries == 0 || entry.status() != LedgerStatus.SUCCEEDED) {
			return;
		}
		Kept kept = new Kept(entry, this.nanoTime.getAsLong());
		synchronized (this) {
			if (this.kept.put(entry.key(), kept) == null) {
				this.order.addLast(entry.key());
				if (this.order.size() > this.maximumEntries) {
					this.kept.remove(this.order.removeFirst());
				}
			}
		}
	}

	/** Forgets every row: after rows were deleted here. */
	synchronized void clear() {
		this.kept.clear();
		this.order.clear();
	}

	int size() {
		return this.kept.size();
	}

}
