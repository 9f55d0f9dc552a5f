package io.idempotency.reconcile;

import io.idempotency.key.IdempotencyKey;

/**
 * A decision on an approval that was refused: nothing was written. The message names the key and says why;
 * {@link #reason()} says it for code.
 */
public class ApprovalRefusedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/** Why a decision is refused. */
	public enum Reason {

		/** The ledger has no call of this key. */
		UNKNOWN_KEY,

		/** The call never asked for approval. */
		NOT_AWAITING_APPROVAL,

		/** The call was decided already: approved, rejected, or expired. */
		ALREADY_DECIDED,

		/** Who decides, or why, was not given. */
		MISSING_REASON,

		/**
		 * Who decides, or why, is text the ledger does not store: a control character (in a reason, tabs and line
		 * breaks are fine), half of a surrogate pair, or a name longer than 255 characters.
		 */
		INVALID_REQUEST

	}

	private final transient IdempotencyKey key;

	private final Reason reason;

	public ApprovalRefusedException(IdempotencyKey key, Reason reason, String why) {
		super("The decision on " + key + " is refused, nothing was written: " + why);
		this.key = key;
		this.reason = reason;
	}

	/** The key of the call. */
	public IdempotencyKey key() {
		return this.key;
	}

	/** Why the decision was refused. */
	public Reason reason() {
		return this.reason;
	}

}
