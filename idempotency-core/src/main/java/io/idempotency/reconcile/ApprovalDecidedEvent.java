package io.idempotency.reconcile;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.LedgerStatus;

/**
 * Published when a call that waited for a person's approval was approved, rejected, or expired: the
 * application resumes the call's run (binds it with {@code RunContext} and asks its agent to carry on), on this
 * instance or any other. An approved call executes when the run calls it again, once however many instances
 * resume it; a rejected or expired one is refused with the decision's reason.
 *
 * @param request the call as it was read after the decision: its run, user, tool and key, who decided and why
 * @param decision {@link LedgerStatus#APPROVED}, {@link LedgerStatus#REJECTED} or {@link LedgerStatus#EXPIRED}
 */
public record ApprovalDecidedEvent(ApprovalRequest request, LedgerStatus decision) {

	/** The run the call belongs to: the one to resume. */
	public String runId() {
		return this.request.entry().runId();
	}

	/** The user the call runs for, or {@code null} where the application has no users. */
	public String userId() {
		return this.request.entry().userId();
	}

	/** The tool's name. */
	public String tool() {
		return this.request.entry().tool();
	}

	/** The call's key. */
	public IdempotencyKey key() {
		return this.request.entry().key();
	}

	/** Whether the call was approved, and executes when its run calls it again. */
	public boolean approved() {
		return this.decision == LedgerStatus.APPROVED;
	}

}
