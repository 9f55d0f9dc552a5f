package io.idempotency.autoconfigure.observability;

import java.time.Duration;

import io.idempotency.ledger.JdbcLedger;

import org.springframework.dao.DataAccessException;

/**
 * How many rows of the ledger wait for a human, read at most once per {@code cacheFor} however often the
 * gauge is scraped; not a number while the ledger cannot be read.
 */
final class AwaitingHuman {

	private final JdbcLedger ledger;

	private final int attempts;

	private final long cacheNanos;

	private boolean read;

	private long readAt;

	private double count;

	AwaitingHuman(JdbcLedger ledger, int attempts, Duration cacheFor) {
		this.ledger = ledger;
		this.attempts = attempts;
		this.cacheNanos = cacheFor.toNanos();
	}

	synchronized double count() {
		long now = System.nanoTime();
		if (!this.read || now - this.readAt >= this.cacheNanos) {
			try {
				this.count = this.ledger.countAwaitingHuman(this.attempts);
			}
			catch (DataAccessException ex) {
				this.count = Double.NaN;
			}
			this.read = true;
			this.readAt = now;
		}
		return this.count;
	}

}
