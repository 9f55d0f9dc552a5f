package io.idempotency.ledger;

import java.time.Duration;
import java.time.Instant;

/**
 * A ledger row as an operator reads it: the call, how long ago it was claimed, whether a reconciler holds it
 * at this moment, and the last decision an operator recorded on it.
 *
 * @param entry the row
 * @param age how long ago the call was claimed, by the database clock
 * @param leased whether a reconciler holds a live lease on the row: it is being reconciled at this moment
 * @param settledBy who last settled the row by hand (or sent it back to the reconciler), or {@code null}
 * @param settledAt when, by the database clock, or {@code null}
 * @param settleReason why, as that operator wrote it, or {@code null}
 */
public record CallRecord(LedgerEntry entry, Duration age, boolean leased, String settledBy, Instant settledAt,
		String settleReason) {

}
