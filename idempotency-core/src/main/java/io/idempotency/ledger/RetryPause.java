package io.idempotency.ledger;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The pause before the ledger runs work again that the database rolled back (a lost lock conflict, a
 * serialization failure): a random length up to the attempt number times a unit, so that conflicting work
 * spreads instead of meeting again.
 */
final class RetryPause {

	/** The unit of the pause, in milliseconds. */
	static final long UNIT_MILLIS = 10;

	private RetryPause() {
	}

	/**
	 * Pauses before the given attempt runs again; an interrupted pause ends it, the thread's flag kept, and the
	 * failure is the caller's to throw.
	 */
	static void before(int attempt, RuntimeException failure) {
		try {
			Thread.sleep(ThreadLocalRandom.current().nextLong(1, attempt * UNIT_MILLIS + 1));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw failure;
		}
	}

}
