package io.idempotency.reconcile;

import java.time.Duration;
import java.util.Map;

/**
 * How the reconciler works through calls whose outcome is open.
 *
 * @param staleAfter how long a call must have been attempting or unknown before it is reconciled; long
 * enough that a call still running is not reconciled under it
 * @param staleAfterByTool the same, per tool name, for tools that legitimately run longer
 * @param batchSize how many rows one pass takes at most
 * @param lease how long a pass holds its rows; no other instance takes them meanwhile
 * @param initialBackoff the pause after a reconcile method fails, doubled after each further failure
 * @param maxBackoff the longest pause
 * @param maxAttempts after this many failed attempts a row waits for a human
 */
public record ReconcilerSettings(Duration staleAfter, Map<String, Duration> staleAfterByTool, int batchSize,
		Duration lease, Duration initialBackoff, Duration maxBackoff, int maxAttempts) {

	/** The defaults: stale after 2 minutes, 100 rows a pass, a 5 minute lease, back-off from 1 minute to 1 hour, 10 attempts. */
	public static ReconcilerSettings defaults() {
		return new ReconcilerSettings(Duration.ofMinutes(2), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMinutes(1),
				Duration.ofHours(1), 10);
	}

	public ReconcilerSettings {
		requirePositive(staleAfter, "staleAfter");
		staleAfterByTool = Map.copyOf(staleAfterByTool);
		staleAfterByTool.forEach((tool, duration) -> requirePositive(duration, "staleAfter of tool '" + tool + "'"));
		if (batchSize < 1) {
			throw new IllegalArgumentException("The reconciler's batchSize must be at least 1, but was " + batchSize);
		}
		requirePositive(lease, "lease");
		requirePositive(initialBackoff, "initialBackoff");
		requirePositive(maxBackoff, "maxBackoff");
		if (maxBackoff.compareTo(initialBackoff) < 0) {
			throw new IllegalArgumentException("The reconciler's maxBackoff (" + maxBackoff
					+ ") must not be shorter than its initialBackoff (" + initialBackoff + ")");
		}
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("The reconciler's maxAttempts must be at least 1, but was " + maxAttempts);
		}
	}

	/** The threshold of a tool. */
	public Duration staleAfter(String tool) {
		return this.staleAfterByTool.getOrDefault(tool, this.staleAfter);
	}

	/** The pause after the given number of failed attempts. */
	Duration backoff(int attempts) {
		Duration pause = this.initialBackoff;
		for (int i = 1; i < attempts && pause.compareTo(this.maxBackoff) < 0; i++) {
			pause = pause.multipliedBy(2);
		}
		return (pause.compareTo(this.maxBackoff) < 0) ? pause : this.maxBackoff;
	}

	private static void requirePositive(Duration duration, String name) {
		if (duration == null || duration.isZero() || duration.isNegative()) {
			throw new IllegalArgumentException("The reconciler's " + name + " must be more than zero, but was " + duration);
		}
	}

}
