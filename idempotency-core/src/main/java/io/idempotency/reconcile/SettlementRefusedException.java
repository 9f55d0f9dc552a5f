package io.idempotency.reconcile;

import io.idempotency.key.IdempotencyKey;

/**
 * A settlement by hand that was refused: nothing was written. The message names the key and says why;
 * {@link #reason()} says it for code.
 */
public class SettlementRefusedException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/** Why a settlement is refused. */
	public enum Reason {

		/** The ledger has no call of this key. */
		UNKNOWN_KEY,

		/** The call is settled already: by the call itself, a reconciler or another operator. */
		ALREADY_SETTLED,

		/** A reconciler holds the call at this moment. */
		BEING_RECONCILED,

		/** The call is unsettled, but the reconciler has not handed it to a human. */
		NOT_AWAITING_HUMAN,

		/** Who settles, or why, was not given. */
		MISSING_REASON,

		/**
		 * Who settles, or why, is text the ledger does not store: a control character (U+0000 among them, which
		 * PostgreSQL refuses; in a reason, tabs and line breaks are fine), half of a surrogate pair, or a name
		 * longer than 255 characters.
		 */
		INVALID_REQUEST,

		/** The result is not JSON, does not bind to the tool's result type, or may not be stored. */
		RESULT_REFUSED

	}

	private final transient IdempotencyKey key;

	private final Reason reason;

	public SettlementRefusedException(IdempotencyKey key, Reason reason, String why) {
		super("The settlement of " + key + " is refused, nothing was written: " + why);
		this.key = key;
		this.reason = reason;
	}

	/** The key of the call. */
	public IdempotencyKey key() {
		return this.key;
	}

	/** Why the settlement was refused. */
	public Reason reason() {
		return this.reason;
	}

}
