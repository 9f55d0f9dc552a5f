package io.idempotency.ledger;

import java.time.Instant;

import io.idempotency.key.IdempotencyKey;

/**
 * One row of the ledger: a claimed call and what became of it. Times come from the database clock. An outcome
 * of this instance's that waits to be written behind its caller ({@link OutcomeWriteBehind}) is answered as
 * the row it will be: its times, not yet known, are {@code null}, and its replay count {@code 0}.
 *
 * @param id the row's id
 * @param key the call's idempotency key
 * @param runId the run that claimed it
 * @param userId the user that claimed it, or {@code null} where the application has no users
 * @param tool the tool's name
 * @param arguments the arguments as JSON, with sensitive values redacted
 * @param status where the call stands
 * @param result the result as JSON, once succeeded (or {@code null} for a tool that returns nothing)
 * @param error what went wrong, once failed or unknown
 * @param startedAt when the call was claimed ({@code null} for an outcome that waits to be written)
 * @param finishedAt when its outcome was recorded, or {@code null}
 * @param replayCount how many later calls were answered from this row without executing, as far as
 * counted (counts are flushed in batches)
 * @param reconcileAttempts how many times the reconciler has taken this row
 * @param reconcileOwner the lease holder while the reconciler works on this row, else {@code null}
 */
public record LedgerEntry(long id, IdempotencyKey key, String runId, String userId, String tool, String arguments,
		LedgerStatus status, String result, String error, Instant startedAt, Instant finishedAt, int replayCount,
		int reconcileAttempts, String reconcileOwner) {

	/** Whether the outcome is still open: attempting or unknown. */
	public boolean isUnsettled() {
		return this.status.isUnsettled();
	}

}
