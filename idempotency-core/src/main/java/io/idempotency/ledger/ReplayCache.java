package io.idempotency.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * How many settled outcomes a ledger keeps in memory, and for how long, to answer a repeat without a
 * round trip to the database. Only succeeded and failed rows are kept, and only once read from the
 * database as committed: they are final, so a repeat answered from memory gets what the row says. A
 * repeat by another user than the row's is refused as it is from the database, and every answer from
 * memory counts as a replay.
 * <p>
 * What memory cannot see: a row deleted after it was kept (by hand, or by the retention of another
 * instance) is still answered from memory here until its time to live ends. Keep the time to live well
 * below the retention period, or {@linkplain #off() turn the cache off} where rows are deleted by hand to
 * let a call run again.
 * @param maximumEntries how many outcomes at most; {@code 0} turns the cache off
 * @param timeToLive how long an outcome is answered from memory after it was read
 */
public record ReplayCache(int maximumEntries, Duration timeToLive) {

	/** The cache a ledger has unless told otherwise: none. */
	public static ReplayCache off() {
		return new ReplayCache(0, Duration.ofSeconds(1));
	}

	public ReplayCache {
		if (maximumEntries < 0) {
			throw new IllegalArgumentException("maximumEntries must not be negative, but was " + maximumEntries);
		}
		Objects.requireNonNull(timeToLive, "timeToLive");
		if (timeToLive.isNegative() || timeToLive.isZero()) {
			throw new IllegalArgumentException("timeToLive must be positive, but was " + timeToLive);
		}
	}

	/** Whether outcomes are kept at all. */
	public boolean enabled() {
		return this.maximumEntries > 0;
	}

}
