package io.idempotency.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.idempotency.key.IdempotencyKey;

/**
 * Replays counted in memory and written in batches, so that answering a replay never waits on a durable
 * write. Counts not yet flushed are lost if the process dies: acceptable for a monitor. At most
 * {@code capacity} distinct keys wait for a flush; replays of further keys are dropped and counted as
 * dropped until the next flush.
 */
final class ReplayCounter {

	record Pending(IdempotencyKey key, long replays) {
	}

	private final int capacity;

	private final Map<IdempotencyKey, LongAdder> pending = new ConcurrentHashMap<>();

	private final AtomicLong dropped = new AtomicLong();

	ReplayCounter(int capacity) {
		this.capacity = capacity;
	}

	/** Counts a claim that was answered from an existing row of its user: a repeat. */
	Claim counted(Claim claim) {
		if (!(claim instanceof Claim.Won) && !(claim instanceof Claim.HeldByAnotherUser)) {
			record(claim.key());
		}
		return claim;
	}

	void record(IdempotencyKey key) {
		// Atomic with drain's remove, so that no count lands in an adder already drained.
		this.pending.compute(key, (k, count) -> {
			if (count == null) {
				if (this.pending.size() >= this.capacity) {
					this.dropped.incrementAndGet();
					return null;
				}
				count = new LongAdder();
			}
			count.increment();
			return count;
		});
	}

	/** Takes every pending count; a replay recorded meanwhile is kept for the next drain. */
	List<Pending> drain() {
		List<Pending> drained = new ArrayList<>(this.pending.size());
		for (IdempotencyKey key : this.pending.keySet()) {
			LongAdder count = this.pending.remove(key);
			if (count != null) {
				drained.add(new Pending(key, count.sum()));
			}
		}
		return drained;
	}

	/** Puts counts back after a flush failed, so that the next flush tries them again. */
	void restore(List<Pending> counts) {
		for (Pending count : counts) {
			this.pending.computeIfAbsent(count.key(), (k) -> new LongAdder()).add(count.replays());
		}
	}

	long dropped() {
		return this.dropped.get();
	}

}
