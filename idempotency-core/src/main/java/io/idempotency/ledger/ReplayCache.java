package io.idempotency.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * How many succeeded outcomes a ledger keeps in memory, and for how long, to answer a repeat without a
 * round trip to the database. Only succeeded rows are kept, and only once read from the database as
 * committed: a success is final, so a repeat answered from memory gets what the row says. A failed row is
 * not kept: a failure a reconciler recorded while the call still ran is overturned when the call's success
 * arrives late, on whichever instance ran it, so a repeat of a failed call is read from the table every time.
 * A repeat by another user than the row's is refused as it is from the database, and every answer from
 * memory counts as a replay.
 * <p>
 * What memory cannot see: a row deleted after it was kept (by hand, or by the retention of another
 * instance) is still answered from memory here until its time to live ends. Keep the time to live well
 * below the retention period, or {@linkplain #off() turn the cache off} where rows are deleted by hand to
 * let a call run again.
 * @param maximumEntries how many successes at most; {@code 0} turns the cache off
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
