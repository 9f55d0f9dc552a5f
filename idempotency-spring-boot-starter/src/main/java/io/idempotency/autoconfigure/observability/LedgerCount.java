package io.idempotency.autoconfigure.observability;

import java.time.Duration;
import java.util.function.Supplier;

import io.idempotency.ledger.JdbcLedger;

/**
 * A count of the ledger's rows for a gauge (those that wait for a human, or for approval), read at most once per
 * {@code cacheFor} however often the gauge is scraped, once at a time and within the timeout (see
 * {@link LedgerReading}); not a number while the ledger cannot be read, or its table does not answer within
 * the timeout.
 */
final class LedgerCount {

	private final LedgerReading<Long> count;

	LedgerCount(JdbcLedger ledger, Supplier<Long> count, Duration cacheFor, Duration timeout) {
		this.count = new LedgerReading<>(new LedgerReads(ledger, timeout), count, cacheFor, "idempotency-gauge");
	}

	/** The rows that wait for a human: unresolved after the reconciler's attempts. */
	static LedgerCount awaitingHuman(JdbcLedger ledger, int attempts, Duration cacheFor, Duration timeout) {
		return new LedgerCount(ledger, () -> ledger.countAwaitingHuman(attempts), cacheFor, timeout);
	}

	/** The rows that wait for a person's approval. */
	static LedgerCount awaitingApproval(JdbcLedger ledger, Duration cacheFor, Duration timeout) {
		return new LedgerCount(ledger, () -> ledger.approvals().countAwaiting(), cacheFor, timeout);
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
