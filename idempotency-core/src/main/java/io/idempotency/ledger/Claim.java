package io.idempotency.ledger;

import java.time.Instant;

import io.idempotency.key.IdempotencyKey;

/**
 * The answer to a claim. Exactly one claim per key is {@link Won}; it alone executes the call and records
 * its outcome. Every other claim learns from the existing row why it must not execute.
 */
public sealed interface Claim {

	/** The key claimed or contended for. */
	IdempotencyKey key();

	/**
	 * This call holds the key: execute it, then record the outcome with this claim, which names the row it
	 * inserted. The outcome is written to that row and no other: if the row is deleted while the call runs and
	 * the key is claimed again, the later claim's row is never written with this call's outcome.
	 * @param key the key claimed
	 * @param rowId the id of the row this claim inserted
	 */
	record Won(IdempotencyKey key, long rowId) implements Claim {
	}

	/** The call already succeeded in this run: answer with the stored result, marked as replayed. */
	record Replay(LedgerEntry entry) implements Claim {

		@Override
		public IdempotencyKey key() {
			return this.entry.key();
		}

		/** The stored result as JSON, or {@code null} for a tool that returns nothing. */
		public String result() {
			return this.entry.result();
		}

	}

	/** The call already ran in this run and definitely failed; it is not executed again. */
	record PreviousAttemptFailed(LedgerEntry entry) implements Claim {

		@Override
		public IdempotencyKey key() {
			return this.entry.key();
		}

		public String error() {
			return this.entry.error();
		}

	}

	/**
	 * The call is executing, or its outcome is unknown until the reconciler resolves it. Not a failure:
	 * retrying it is how one timeout becomes three tickets.
	 */
	record InProgress(LedgerEntry entry) implements Claim {

		@Override
		public IdempotencyKey key() {
			return this.entry.key();
		}

		/** When the call was claimed, by the database clock. */
		public Instant since() {
			return this.entry.startedAt();
		}

	}

	/**
	 * Another user holds this key. Nothing of that user's row is revealed; the call is refused. Two users
	 * sharing a run id is a bug in the application or an attack.
	 */
	record HeldByAnotherUser(IdempotencyKey key) implements Claim {
	}

	/**
	 * The call needs a person's approval and waits for it: claimed now (the first call), or found waiting.
	 * Nothing executes until a person approves it; then the next claim of the key wins it.
	 * @param entry the row that waits
	 * @param reason why the call needs approval, as its tool said
	 * @param first whether this claim made the row: the first call, not a repeat
	 */
	record AwaitingApproval(LedgerEntry entry, String reason, boolean first) implements Claim {

		@Override
		public IdempotencyKey key() {
			return this.entry.key();
		}

	}

	/**
	 * A person rejected the call, or nobody approved it in time: it never executed, and never will.
	 * @param entry the row
	 * @param reason the person's reason, or why it expired
	 */
	record NotApproved(LedgerEntry entry, String reason) implements Claim {

		@Override
		public IdempotencyKey key() {
			return this.entry.key();
		}

		/** Whether nobody decided in time; {@code false} when a person rejected it. */
		public boolean expired() {
			return this.entry.status() == LedgerStatus.EXPIRED;
		}

	}

}
