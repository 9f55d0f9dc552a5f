package io.idempotency.ledger;

/** Where a call stands in the ledger. */
public enum LedgerStatus {

	/** Claimed and executing, or the process died while it executed: the effect may have happened. */
	ATTEMPTING("attempting"),

	/** Executed, and the result is stored. */
	SUCCEEDED("succeeded"),

	/** Executed, and it definitely did not take effect. */
	FAILED("failed"),

	/** Executed, and whether it took effect is not known (a timeout, an I/O error): for the reconciler. */
	UNKNOWN("unknown"),

	/** Claimed, and waiting for a person's approval: nothing was executed. */
	AWAITING_APPROVAL("awaiting"),

	/**
	 * A person approved it; nothing was executed yet. The next call of its key takes the row and executes it,
	 * once.
	 */
	APPROVED("approved"),

	/** A person rejected it: it was never executed, and never will be. */
	REJECTED("rejected"),

	/** Nobody decided on it in time: it was never executed, and never will be. */
	EXPIRED("expired");

	private final String columnValue;

	LedgerStatus(String columnValue) {
		this.columnValue = columnValue;
	}

	/** Whether the outcome is still open: attempting or unknown. */
	public boolean isUnsettled() {
		return this == ATTEMPTING || this == UNKNOWN;
	}

	/** Whether a person's decision was asked for: awaiting approval, or approved, rejected or expired. */
	public boolean isApprovalStatus() {
		return this == AWAITING_APPROVAL || this == APPROVED || this == REJECTED || this == EXPIRED;
	}

	/** The value stored in the {@code status} column. */
	String columnValue() {
		return this.columnValue;
	}

	static LedgerStatus ofColumnValue(String value) {
		for (LedgerStatus status : values()) {
			if (status.columnValue.equals(value)) {
				return status;
			}
		}
		throw new IllegalArgumentException("No ledger status is stored as '" + value + "'");
	}

}
