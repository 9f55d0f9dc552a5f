package io.idempotency.ledger;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

import io.idempotency.key.IdempotencyKey;

/**
 * What the ledger holds in memory at its bounds, as heap in use after a full collection: the replay counts
 * waiting for a flush when one million distinct keys are replayed (at most 100,000 are kept; the rest
 * are counted as dropped), and the replay cache at the starter's 10,000 outcomes. Run it with
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.ledger.MemoryFootprint}.
 */
public final class MemoryFootprint {

	private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

	private MemoryFootprint() {
	}

	public static void main(String[] args) {
		long empty = heapInUse();
		ReplayCounter counter = new ReplayCounter(100_000);
		for (int i = 0; i < 1_000_000; i++) {
			counter.record(key(i));
		}
		long counted = heapInUse();
		long keptKeys = 1_000_000 - counter.dropped();
		System.out.printf("replay counts after 1,000,000 distinct keys: %,d kept, %,d dropped, %,d bytes of heap"
				+ " (%.0f per key kept)%n", keptKeys, counter.dropped(), counted - empty,
				(double) (counted - empty) / keptKeys);

		long before = heapInUse();
		SettledOutcomes outcomes = new SettledOutcomes(new ReplayCache(10_000, Duration.ofMinutes(10)));
		for (int i = 0; i < 1_000_000; i++) {
			outcomes.keep(new LedgerEntry(i, key(i), "run-" + i, "user-1", "note",
					"{\"account\":\"Henderson Industrial\",\"quantity\":200}", LedgerStatus.SUCCEEDED,
					"{\"account\":\"Henderson Industrial\",\"quantity\":200}", null, Instant.now(), Instant.now(), 0, 0,
					null));
		}
		long kept = heapInUse();
		System.out.printf("replay cache after 1,000,000 distinct outcomes: %,d kept, %,d bytes of heap (%.0f per"
				+ " outcome with a 50-character result)%n", outcomes.size(), kept - before,
				(double) (kept - before) / outcomes.size());
		// Both stay reachable until here, so that the collections above could not free them.
		System.out.println((counter.dropped() + outcomes.size() > 0) ? "" : "empty");
	}

	private static IdempotencyKey key(int i) {
		return new IdempotencyKey(String.format("%048x", 0) + HexFormat.of().toHexDigits((long) i));
	}

	private static long heapInUse() {
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return MEMORY.getHeapMemoryUsage().getUsed();
	}

}
