package io.idempotency.reconcile;

import java.util.Locale;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.SettlementQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a settlement through the ledger, on the condition that the row still waits for a human, and reads the
 * call back as written; a write that found the row no longer waiting is refused, saying why. Each settlement
 * written is logged, without any text an operator wrote.
 */
final class SettlementWrites {

	// Logged under the name of the operators' entry point, as operators look for it.
	private static final Logger logger = LoggerFactory.getLogger(Settlements.class);

	private final SettlementQueue ledger;

	private final CallsToSettle calls;

	private final SettlementChecks checks;

	private final int maxAttempts;

	SettlementWrites(SettlementQueue ledger, CallsToSettle calls, SettlementChecks checks, int maxAttempts) {
		this.ledger = ledger;
		this.calls = calls;
		this.checks = checks;
		this.maxAttempts = maxAttempts;
	}

	/** Settles the call of the key as succeeded, with the result as the ledger stores it. */
	CallRecord succeeded(IdempotencyKey key, CallRecord call, String storedResult, String operator, String reason) {
		return written(call, LedgerStatus.SUCCEEDED, this.ledger.settle(key, LedgerStatus.SUCCEEDED, storedResult, null,
				this.maxAttempts, operator, reason));
	}

	/** Settles the call of the key as failed, the reason being its error. */
	CallRecord failed(IdempotencyKey key, CallRecord call, String operator, String reason) {
		return written(call, LedgerStatus.FAILED,
				this.ledger.settle(key, LedgerStatus.FAILED, null, reason, this.maxAttempts, operator, reason));
	}

	/** Sends the call of the key back to the reconciler, for one more try. */
	CallRecord sentBack(IdempotencyKey key, CallRecord call, String operator, String reason) {
		return written(call, null, this.ledger.sendBack(key, this.maxAttempts, this.maxAttempts - 1, operator, reason));
	}

	/** The call as written, or, when the write found the row no longer waiting, the refusal that says why. */
	private CallRecord written(CallRecord call, LedgerStatus outcome, boolean written) {
		IdempotencyKey key = call.entry().key();
		CallRecord now = this.calls.existing(key, "the call's row was deleted meanwhile");
		if (!written) {
			this.checks.refuseOvertaken(key, now);
		}
		// Who and why are in the row; a log line carries no text an operator wrote, as none carries an error's.
		if (outcome != null) {
			String status = outcome.name().toLowerCase(Locale.ROOT);
			logger.atInfo()
				.addKeyValue("idempotency.tool", call.entry().tool())
				.addKeyValue("idempotency.key", key.value())
				.addKeyValue("idempotency.run", call.entry().runId())
				.addKeyValue("idempotency.status", status)
				.log("settlement.settled tool={} key={} run={} status={}", call.entry().tool(), key, call.entry().runId(),
						status);
		}
		else {
			logger.atInfo()
				.addKeyValue("idempotency.tool", call.entry().tool())
				.addKeyValue("idempotency.key", key.value())
				.addKeyValue("idempotency.run", call.entry().runId())
				.log("settlement.sent_back tool={} key={} run={}: for the reconciler's next pass", call.entry().tool(), key,
						call.entry().runId());
		}
		return now;
	}

}
