package io.idempotency.autoconfigure.observability;

import java.time.Duration;

import io.idempotency.autoconfigure.IdempotencyProperties;

/**
 * The settings health, the endpoint and the gauge read the ledger with, checked when the first of them is made:
 * a value that could only make every probe fail, or that no database can count back, stops the start and names
 * its property. The reconciler's threshold and attempts are checked here too, for an instance whose reconciler is
 * off still reports with them.
 */
record HealthSettings(Duration window, long minimumCalls, Duration cacheFor, Duration timeout, int humanAfterAttempts,
		Duration staleAfter) {

	/** The longest window, cache or threshold: a hundred years, which every supported database counts back. */
	static final Duration LONGEST = Duration.ofDays(36_500);

	/** The longest timeout: a probe that waits longer than this is not answered by any platform that probes. */
	static final Duration LONGEST_TIMEOUT = Duration.ofMinutes(1);

	static HealthSettings of(IdempotencyProperties properties) {
		IdempotencyProperties.Health health = properties.getHealth();
		IdempotencyProperties.Reconciler reconciler = properties.getReconciler();
		if (health.getMinimumCalls() < 0) {
			throw new IllegalStateException("idempotency.health.minimum-calls must be zero or more, but was "
					+ health.getMinimumCalls());
		}
		if (reconciler.getMaxAttempts() < 1) {
			throw new IllegalStateException("idempotency.reconciler.max-attempts must be at least 1, but was "
					+ reconciler.getMaxAttempts());
		}
		return new HealthSettings(positive("idempotency.health.window", health.getWindow()), health.getMinimumCalls(),
				notNegative("idempotency.health.cache-for", health.getCacheFor()), timeout(health.getTimeout()),
				reconciler.getMaxAttempts(), positive("idempotency.reconciler.stale-after", reconciler.getStaleAfter()));
	}

	private static Duration positive(String property, Duration value) {
		if (value == null || value.isZero() || value.isNegative()) {
			throw new IllegalStateException(property + " must be more than zero, but was " + value);
		}
		return atMostLongest(property, value);
	}

	private static Duration notNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw new IllegalStateException(property + " must be zero or more, but was " + value);
		}
		return atMostLongest(property, value);
	}

	private static Duration atMostLongest(String property, Duration value) {
		if (value.compareTo(LONGEST) > 0) {
			throw new IllegalStateException(property + " must be at most " + LONGEST.toDays() + "d, but was " + value);
		}
		return value;
	}

	private static Duration timeout(Duration timeout) {
		if (timeout == null || timeout.toSeconds() < 1 || timeout.getNano() != 0
				|| timeout.compareTo(LONGEST_TIMEOUT) > 0) {
			throw new IllegalStateException("idempotency.health.timeout must be a whole number of seconds from 1s to "
					+ LONGEST_TIMEOUT.toSeconds() + "s (JDBC's query timeouts are in seconds), but was " + timeout);
		}
		return timeout;
	}

}
