package io.idempotency.ledger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import io.idempotency.key.IdempotencyKey;

/**
 * The ledger as a person deciding on approvals sees it: the calls that wait for approval, and the decisions on
 * them. A decision is one conditional write that holds only while the call still waits: of two decisions at
 * once, or a decision and its expiry, exactly one is written. {@link JdbcLedger#approvals()} gives it on a
 * relational database; {@code io.idempotency.reconcile.Approvals} is the API for operators over it.
 */
public interface ApprovalQueue {

	/**
	 * The calls that wait for approval, in the order of their rows' ids, after a given id.
	 * @param tool the tool whose calls to read, or {@code null} for every tool
	 * @param afterId the id after which to read (zero from the start)
	 * @param limit the most calls to read
	 */
	List<ApprovalRequest> awaiting(String tool, long afterId, int limit);

	/**
	 * The call of a key as a person deciding reads it, if the ledger has it; its reason is {@code null} if it
	 * never asked for approval.
	 */
	Optional<ApprovalRequest> find(IdempotencyKey key);

	/**
	 * Approves or rejects a call that waits for approval, and records who, when (the database clock) and why.
	 * @return whether it was decided; {@code false} if the call does not wait for approval (any more)
	 */
	boolean decide(IdempotencyKey key, boolean approved, String decidedBy, String reason);

	/**
	 * Expires the calls that have waited for approval longer than a bound, oldest first, recording why.
	 * @param olderThan how long a call must have waited
	 * @param reason why they expired, recorded as the decision's reason
	 * @param limit the most calls to expire
	 * @return the calls it expired, as they are now
	 */
	List<ApprovalRequest> expire(Duration olderThan, String reason, int limit);

	/** How many calls wait for approval now. */
	long countAwaiting();

	/**
	 * How many calls this instance claimed as waiting for approval since it started (a claim in a caller's
	 * transaction that rolled back counted too).
	 */
	long requested();

}
