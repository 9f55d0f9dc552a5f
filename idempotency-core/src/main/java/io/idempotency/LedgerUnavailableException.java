package io.idempotency;

/**
 * A call that was not executed because its claim could not be recorded: the ledger's database failed or
 * could not be reached. The tool did not run. The claim may have reached the database even so, its answer
 * lost on the way back; then a repeat in the same run is answered as in progress until the reconciler
 * finds that the call never took effect. The cause is the database's error; the message is written for a
 * model to read.
 */
public class LedgerUnavailableException extends RuntimeException implements AnsweredCall {

	private static final long serialVersionUID = 1L;

	private final String tool;

	public LedgerUnavailableException(String tool, Throwable cause) {
		super(Answer.REFUSED_LEDGER_UNAVAILABLE.message(), cause);
		this.tool = tool;
	}

	/** The tool whose call was not executed. */
	public String tool() {
		return this.tool;
	}

	@Override
	public Answer answer() {
		return Answer.REFUSED_LEDGER_UNAVAILABLE;
	}

}
