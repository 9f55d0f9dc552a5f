package io.idempotency.ledger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.idempotency.key.IdempotencyKey;

/**
 * Replays counted in memory and written in batches, so that answering a replay never waits on a durable
 * write. Counts not yet flushed are lost if the process dies: acceptable for a monitor. At most
 * {@code capacity} distinct keys wait for a flush; replays of further keys are dropped and counted as
 * dropped until the next flush. A count that a flush could not write, its row held by another transaction (or
 * not committed yet), is kept for the next flush, for {@link #KEPT_UNWRITTEN} at most: then it is dropped too.
 */
final class ReplayCounter {

	record Pending(IdempotencyKey key, long replays) {
	}

	/**
	 * How long a count is kept while no flush can write it: longer than any transaction that holds a row should
	 * run, and not forever for a row that never comes (a claim rolled back with its transaction, a row deleted).
	 */
	static final Duration KEPT_UNWRITTEN = Duration.ofHours(1);

	/** How many distinct keys' counts a ledger holds for a flush at most. */
	static final int LEDGER_CAPACITY = 100_000;

	private final int capacity;

	private final long keptUnwrittenNanos;

	private final LongSupplier nanoTime;

	/** A count taken by a drain: closed, and about to be removed. */
	private static final long DRAINED = -1;

	private final Map<IdempotencyKey, AtomicLong> pending = new ConcurrentHashMap<>();

	/** When a flush first could not write each key's count ({@link System#nanoTime()}), until one writes it. */
	private final Map<IdempotencyKey, Long> unwrittenSince = new ConcurrentHashMap<>();

	private final AtomicLong dropped = new AtomicLong();

	ReplayCounter(int capacity) {
		this(capacity, KEPT_UNWRITTEN, System::nanoTime);
	}

	ReplayCounter(int capacity, Duration keptUnwritten, LongSupplier nanoTime) {
		this.capacity = capacity;
		this.keptUnwrittenNanos = keptUnwritten.toNanos();
		this.nanoTime = nanoTime;
	}

	/** Counts a claim that was answered from an existing row of its user: a repeat. */
	Claim counted(Claim claim) {
		boolean first = (claim instanceof Claim.AwaitingApproval awaiting) && awaiting.first();
		if (!(claim instanceof Claim.Won) && !(claim instanceof Claim.HeldByAnotherUser) && !first) {
			record(claim.key());
		}
		return claim;
	}

	void record(IdempotencyKey key) {
		add(key, 1, true);
	}

	/**
	 * Adds replays to a key's count without a lock: a key whose calls are repeated by many threads at once (a
	 * model looping on one tool) is counted by each with a compare-and-set, never waiting on a lock another
	 * holds. A count {@linkplain #drain drained} meanwhile is closed for good, and the replays go to a new one.
	 * @param bounded whether a new key's count is refused, and the replays dropped, once {@code capacity} keys
	 * wait for a flush
	 */
	private void add(IdempotencyKey key, long replays, boolean bounded) {
		for (;;) {
			AtomicLong count = this.pending.get(key);
			if (count == null) {
				if (bounded && this.pending.size() >= this.capacity) {
					this.dropped.addAndGet(replays);
					return;
				}
				count = new AtomicLong(replays);
				if (this.pending.putIfAbsent(key, count) == null) {
					return;
				}
				continue;
			}
			long counted = count.get();
			if (counted == DRAINED) {
				// Taken by a drain, which removes it next: the replays go to a new count.
				this.pending.remove(key, count);
			}
			else if (count.compareAndSet(counted, counted + replays)) {
				return;
			}
		}
	}

	/** Takes every pending count; a replay recorded meanwhile is kept for the next drain. */
	List<Pending> drain() {
		List<Pending> drained = new ArrayList<>(this.pending.size());
		for (Map.Entry<IdempotencyKey, AtomicLong> pending : this.pending.entrySet()) {
			// Closed as it is taken: a replay that finds it closed counts on a new one, never on this.
			long replays = pending.getValue().getAndSet(DRAINED);
			this.pending.remove(pending.getKey(), pending.getValue());
			if (replays != DRAINED) {
				drained.add(new Pending(pending.getKey(), replays));
			}
		}
		return drained;
	}

	/** Puts counts back after a flush failed, so that the next flush tries them again. */
	void restore(List<Pending> counts) {
		for (Pending count : counts) {
			add(count.key(), count.replays(), false);
		}
	}

	/** Forgets that these counts could not be written before: a flush has written them. */
	void written(List<Pending> counts) {
		for (Pending count : counts) {
			this.unwrittenSince.remove(count.key());
		}
	}

	/**
	 * Keeps counts that a flush could not write, their rows held by other transactions or not there, for the next
	 * flush; a count that no flush has written for {@link #KEPT_UNWRITTEN} is dropped, and counted as dropped.
	 */
	void keepUnwritten(List<Pending> counts) {
		long now = this.nanoTime.getAsLong();
		List<Pending> kept = new ArrayList<>(counts.size());
		for (Pending count : counts) {
			long since = this.unwrittenSince.computeIfAbsent(count.key(), (key) -> now);
			if (now - since < this.keptUnwrittenNanos) {
				kept.add(count);
			}
			else {
				this.unwrittenSince.remove(count.key());
				this.dropped.addAndGet(count.replays());
			}
		}
		restore(kept);
	}

	long dropped() {
		return this.dropped.get();
	}

}
