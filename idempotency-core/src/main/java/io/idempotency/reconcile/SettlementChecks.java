package io.idempotency.reconcile;

import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.SettlementQueue;
import io.idempotency.reconcile.SettlementRefusedException.Reason;

/**
 * Whether a settlement may be written: who and why are given and are text the ledger stores
 * ({@link SettlementText}), the call waits for a human (unsettled, held by no reconciler, tried by it as often as
 * it tries), and a result binds to the tool's result type ({@link SettledResults}). Else the refusal that says
 * why.
 */
final class SettlementChecks {

	private final CallsToSettle calls;

	private final SettledResults results;

	private final SettlementQueue ledger;

	private final int maxAttempts;

	SettlementChecks(CallsToSettle calls, SettledResults results, SettlementQueue ledger, int maxAttempts) {
		this.calls = calls;
		this.results = results;
		this.ledger = ledger;
		this.maxAttempts = maxAttempts;
	}

	/** The call, if it waits for a human and the settlement says who and why; else the refusal. */
	CallRecord waiting(IdempotencyKey key, String operator, String reason) {
		Objects.requireNonNull(key, "key");
		SettlementText.checkOperator(key, operator);
		SettlementText.checkReason(key, reason);
		CallRecord call = this.calls.existing(key, "the ledger has no call of this key");
		refuseUnlessWaiting(call);
		return call;
	}

	/** The result of a call settled as succeeded, as the ledger stores it; else the refusal. */
	String storableResult(CallRecord call, String resultJson) {
		return this.results.storable(call, resultJson, this.ledger.redaction());
	}

	/**
	 * Refuses a settlement whose write found the row no longer waiting, saying why as the row now has it: always
	 * throws.
	 */
	void refuseOvertaken(IdempotencyKey key, CallRecord now) {
		refuseUnlessWaiting(now);
		throw new SettlementRefusedException(key, Reason.NOT_AWAITING_HUMAN,
				"the call's row changed while it was settled; look again");
	}

	private void refuseUnlessWaiting(CallRecord call) {
		IdempotencyKey key = call.entry().key();
		if (!call.entry().isUnsettled()) {
			// Settled by a person, unless the call's own outcome came after (a late success); a row whose finish
			// time was cleared by hand is taken as settled by the person it names.
			Instant finished = call.entry().finishedAt();
			String by = (call.settledBy() != null && call.settledAt() != null
					&& (finished == null || !call.settledAt().isBefore(finished)))
							? " by " + call.settledBy() + " at " + call.settledAt() : "";
			throw new SettlementRefusedException(key, Reason.ALREADY_SETTLED,
					"the call is already settled " + call.entry().status().name().toLowerCase(Locale.ROOT) + by);
		}
		if (call.leased()) {
			throw new SettlementRefusedException(key, Reason.BEING_RECONCILED,
					"a reconciler is working on the call at this moment; look again after its pass");
		}
		if (call.entry().reconcileAttempts() < this.maxAttempts) {
			throw new SettlementRefusedException(key, Reason.NOT_AWAITING_HUMAN, "the call is "
					+ call.entry().status().name().toLowerCase(Locale.ROOT) + " and not waiting for a human:"
					+ " the reconciler has tried it " + call.entry().reconcileAttempts() + " of " + this.maxAttempts
					+ " times");
		}
	}

}
