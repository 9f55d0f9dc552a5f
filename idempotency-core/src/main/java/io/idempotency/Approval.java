package io.idempotency;

/**
 * Whether one call of a tool needs a person's approval before it is carried out, and why: what a tool's
 * approval method ({@link IdempotentTool#approval()}) or a function's approval rule answers for a call. The
 * reason is what the person deciding reads, and what the model is told the call awaits.
 *
 * <pre>{@code
 * Approval quoteApproval(int quantity) {
 *     return (quantity > 1000) ? Approval.required("a quote over 1,000 units") : Approval.notRequired();
 * }
 * }</pre>
 *
 * @param required whether the call waits for a person's approval
 * @param reason why, for the person deciding; {@code null} when not required
 */
public record Approval(boolean required, String reason) {

	private static final Approval NOT_REQUIRED = new Approval(false, null);

	/** The longest reason the ledger keeps, in characters. */
	public static final int MAX_REASON_LENGTH = 1000;

	public Approval {
		if (required && (reason == null || reason.isBlank())) {
			throw new IllegalArgumentException("An approval that is required needs a reason a person can read");
		}
		if (!required) {
			reason = null;
		}
		else if (reason.length() > MAX_REASON_LENGTH) {
			throw new IllegalArgumentException("The reason an approval is required is " + reason.length()
					+ " characters long; the ledger keeps at most " + MAX_REASON_LENGTH);
		}
	}

	/** The call waits for a person's approval, for this reason. */
	public static Approval required(String reason) {
		return new Approval(true, reason);
	}

	/** The call executes without approval. */
	public static Approval notRequired() {
		return NOT_REQUIRED;
	}

}
