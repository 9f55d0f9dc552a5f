package io.idempotency.autoconfigure.observability;

import java.time.Duration;

import io.idempotency.ledger.JdbcLedger;

/**
 * How many rows of the ledger wait for a human, read at most once per {@code cacheFor} however often the
 * gauge is scraped, once at a time and within the timeout (see {@link LedgerReading}); not a number while the
 * ledger cannot be read, or its table does not answer within the timeout.
 */
final class AwaitingHuman {

	private final LedgerReading<Long> count;

	AwaitingHuman(JdbcLedger ledger, int attempts, Duration cacheFor, Duration timeout) {
		this.count = new LedgerReading<>(new LedgerReads(ledger, timeout), () -> ledger.countAwaitingHuman(attempts),
				cacheFor, "idempotency-gauge");
	}

	double count() {
		try {
			LedgerReading.Reading<Long> reading = this.count.get();
			return reading.late() ? Double.NaN : reading.value();
		}
		catch (RuntimeException ex) {
			return Double.NaN;
		}
	}

}
