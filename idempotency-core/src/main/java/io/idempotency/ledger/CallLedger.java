package io.idempotency.ledger;

import java.util.Optional;

import io.idempotency.key.IdempotencyKey;

/**
 * The ledger as a call sees it: claim the call's key, and, for the claim that won, record the outcome.
 * Exactly one claim per key wins; every other claim is answered from the row it lost to. An outcome is
 * recorded with the {@link Claim.Won} its claim returned, and written to the row that claim inserted, never to
 * another row of the same key (one claimed after the first was deleted by hand, while its call still ran).
 * {@link JdbcLedger} implements it on a relational database.
 */
public interface CallLedger {

	/**
	 * Claims the call's key: {@link Claim.Won} for exactly one caller of a key, which executes the call and
	 * records its outcome; every other caller is answered from the row it lost to.
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	Claim claim(ClaimRequest request);

	/**
	 * Records that the claimed call returned, on the row its claim inserted. Only the attempt that holds the
	 * claim may: if that row is no longer attempting, or is gone, nothing is written (a late completion), except
	 * over a failure that a reconciler recorded while this call still held its claim, which meant only that no
	 * effect was found yet: the success is written over it.
	 * @param claim the claim this call won
	 * @param resultJson the result as JSON ({@code "null"} for a tool that returned null), or {@code null} for
	 * a tool that returns nothing
	 * @return whether the outcome was recorded; {@code false} for a late completion that was not written
	 */
	boolean recordSucceeded(Claim.Won claim, String resultJson);

	/**
	 * Records that the claimed call returned, but that its result cannot be stored (it cannot be written as
	 * JSON, say). A repeat is answered as done, without a result: never with a {@code null} that would pass
	 * for one.
	 * @param claim the claim this call won
	 * @param reason why the result is not stored
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	boolean recordSucceededWithoutResult(Claim.Won claim, String reason);

	/**
	 * Records that the claimed call definitely did not take effect. A repeat of it is answered as a
	 * previous failure and not executed.
	 * @param claim the claim this call won
	 * @param error what went wrong
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	boolean recordFailed(Claim.Won claim, String error);

	/**
	 * Records that the claimed call ended without telling whether it took effect (a timeout, an I/O error).
	 * The reconciler resolves it.
	 * @param claim the claim this call won
	 * @param error what went wrong
	 * @return whether the outcome was recorded; {@code false} for a late completion
	 */
	boolean recordUnknown(Claim.Won claim, String error);

	/**
	 * Counts a repeat of the call with this key that was answered without a claim of its own (a caller of a
	 * transactional tool told the call is in progress), as {@link #claim} counts a lost claim.
	 */
	void recordReplay(IdempotencyKey key);

	/**
	 * The row of a key as the ledger's database has it committed, if there is one: read without a lock, for a
	 * repeat that waits for a running call's outcome, or compares its details with the earlier call's. A
	 * ledger that cannot read rows back finds none: such repeats are answered without waiting or comparing.
	 */
	default Optional<LedgerEntry> find(IdempotencyKey key) {
		return Optional.empty();
	}

	/**
	 * The row of a key as a repeat made now would be answered from: where this ledger holds the outcome of the
	 * key's call in memory, to be written behind its caller, the row with that outcome (a success or a failure;
	 * an outcome unknown is not, as a repeat is not answered from it); else the row as {@link #find} reads it.
	 * For a repeat that waits for a running call's outcome: the call may have settled on this instance before its
	 * row is written.
	 */
	default Optional<LedgerEntry> findLatest(IdempotencyKey key) {
		return find(key);
	}

	/** What this ledger removes from arguments, results and error texts before it stores them. */
	Redaction redaction();

}
