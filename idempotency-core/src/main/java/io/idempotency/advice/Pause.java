package io.idempotency.advice;

import java.util.concurrent.ThreadLocalRandom;

/** The advice's pauses: between polls of a running call's row, and before a transaction runs again. */
final class Pause {

	private Pause() {
	}

	/** A random pause up to {@code attempt} times {@code unitMillis}, so that conflicting work spreads. */
	static boolean beforeAttempt(int attempt, long unitMillis) {
		return of(ThreadLocalRandom.current().nextLong(1, attempt * unitMillis + 1) * 1_000_000);
	}

	/** Pauses; {@code false} if the thread was interrupted, which ends the pause (the flag is kept). */
	static boolean of(long nanos) {
		try {
			Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
