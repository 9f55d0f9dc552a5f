package io.idempotency.ledger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.idempotency.key.IdempotencyKey;

/**
 * The ledger as an operator sees it: the unsettled calls, and the settlement by hand of those the reconciler
 * has handed to a human. A row waits for a human when it is unsettled, the reconciler has taken it at least a
 * given number of times, and no reconciler holds it at this moment. Every write holds only while the row still
 * waits: the one of two concurrent writes that comes second writes nothing. {@link JdbcLedger} implements it
 * on a relational database; {@code io.idempotency.reconcile.Settlements} is the API for operators over it.
 */
public interface SettlementQueue {

	/**
	 * The furthest back {@link #unsettled} reaches: 36,525 days (100 years). Every database takes it; much
	 * further, PostgreSQL's timestamps end and H2's date arithmetic overflows.
	 */
	Duration MAX_OLDER_THAN = Duration.ofDays(36_525);

	/**
	 * Unsettled rows (attempting or unknown) in the order of their ids, after a given id.
	 * @param tool the tool whose rows to read, or {@code null} for every tool
	 * @param olderThan how long ago a row must have been claimed, from zero to {@link #MAX_OLDER_THAN}
	 * @param awaitingHumanAfter when more than zero, only the rows that wait for a human after this many of
	 * the reconciler's attempts; when zero, every unsettled row
	 * @param afterId the id after which to read (zero from the start)
	 * @param limit the most rows to read
	 */
	List<CallRecord> unsettled(String tool, Duration olderThan, int awaitingHumanAfter, long afterId, int limit);

	/** The row of a key as an operator reads it, if there is one. */
	Optional<CallRecord> record(IdempotencyKey key);

	/**
	 * Settles a row that waits for a human as succeeded (with the result as JSON, or {@code null} for a tool
	 * that returns nothing) or failed (with the error a repeat is answered with), and records who, when (the
	 * database clock) and why.
	 * @return whether it was settled; {@code false} if the row does not wait for a human (any more)
	 */
	boolean settle(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error, int awaitingHumanAfter,
			String settledBy, String reason);

	/**
	 * Sends a row that waits for a human back to the reconciler, which takes it at its next pass: its attempts
	 * are set to the given number, and who, when and why are recorded.
	 * @return whether it was sent back; {@code false} if the row does not wait for a human (any more)
	 */
	boolean sendBack(IdempotencyKey key, int awaitingHumanAfter, int attempts, String settledBy, String reason);

	/** What this ledger removes from results and error texts before it stores them. */
	Redaction redaction();

}
