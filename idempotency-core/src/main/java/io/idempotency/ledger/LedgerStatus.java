package io.idempotency.ledger;

/** Where a call stands in the ledger. */
public enum LedgerStatus {

	/** Claimed and executing, or the process died while it executed: the effect may have happened. */
	ATTEMPTING,

	/** Executed, and the result is stored. */
	SUCCEEDED,

	/** Executed, and it definitely did not take effect. */
	FAILED,

	/** Executed, and whether it took effect is not known (a timeout, an I/O error): for the reconciler. */
	UNKNOWN;

	/** Whether the outcome is still open: attempting or unknown. */
	public boolean isUnsettled() {
		return this == ATTEMPTING || this == UNKNOWN;
	}

	/** The value stored in the {@code status} column. */
	String columnValue() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

	static LedgerStatus ofColumnValue(String value) {
		return valueOf(value.toUpperCase(java.util.Locale.ROOT));
	}

}
