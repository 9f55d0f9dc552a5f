package io.idempotency.ledger;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The ledger as the reconciler sees it: the calls whose outcome is open (attempting or unknown for longer
 * than a threshold), leased to one reconciler at a time, then resolved or given back for later. Every write
 * holds only while its lease does. {@link JdbcLedger} implements it on a relational database.
 */
public interface ReconcileQueue {

	/**
	 * Takes a batch of the given tools' rows that have been attempting or unknown for longer than a threshold
	 * (since their claim or their last heartbeat, whichever is later), and leases them: until the lease ends,
	 * or the row is resolved or postponed by this lease, no other caller receives the same rows.
	 * @param tools the tools whose rows to take
	 * @param olderThan how long a row must have been unsettled
	 * @param limit the most rows to take
	 * @param leaseFor how long the rows are reserved for the caller
	 * @return the leased rows, oldest first, each carrying its lease in {@link LedgerEntry#reconcileOwner()}
	 */
	List<LedgerEntry> leaseStaleOf(Set<String> tools, Duration olderThan, int limit, Duration leaseFor);

	/**
	 * Resolves a leased row as succeeded: the call took effect.
	 * @param resultJson the result as JSON, or {@code null} where there is none to store
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	boolean resolveSucceeded(LedgerEntry leased, String resultJson);

	/**
	 * Resolves a leased row as failed: the call did not take effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	boolean resolveFailed(LedgerEntry leased, String error);

	/**
	 * Gives a leased row back unresolved, to be taken again after a pause: whether the call took effect could
	 * not be told this time.
	 * @return whether the row was given back; {@code false} if the lease was lost or the row settled
	 */
	boolean postpone(LedgerEntry leased, Duration retryAfter);

	/** What this ledger removes from results and error texts before it stores them. */
	Redaction redaction();

}
