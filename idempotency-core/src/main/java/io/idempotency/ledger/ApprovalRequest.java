package io.idempotency.ledger;

import java.time.Duration;
import java.time.Instant;

/**
 * A call that asked for a person's approval, as an operator reads it: the call (tool, run, user, arguments as
 * stored, redacted), why it needs approval, how long ago it asked, and the decision once there is one.
 *
 * @param entry the row: its status says where the approval stands ({@link LedgerStatus#AWAITING_APPROVAL},
 * {@link LedgerStatus#APPROVED}, {@link LedgerStatus#REJECTED}, {@link LedgerStatus#EXPIRED}), or, once an
 * approved call was executed, what became of it
 * @param reason why the call needs approval, as its tool said
 * @param age how long ago the call asked for approval, by the database clock
 * @param decidedBy who approved or rejected it; {@code null} before a decision, and for a call that expired
 * @param decidedAt when it was decided or expired, by the database clock; {@code null} before
 * @param decisionReason the person's reason, or why it expired; {@code null} before
 */
public record ApprovalRequest(LedgerEntry entry, String reason, Duration age, String decidedBy, Instant decidedAt,
		String decisionReason) {

	/** Whether it still waits for a person's decision. */
	public boolean isAwaiting() {
		return this.entry.status() == LedgerStatus.AWAITING_APPROVAL;
	}

}
