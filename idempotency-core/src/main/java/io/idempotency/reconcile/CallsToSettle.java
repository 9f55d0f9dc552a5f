package io.idempotency.reconcile;

import java.util.List;
import java.util.Optional;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.SettlementQueue;
import io.idempotency.reconcile.SettlementRefusedException.Reason;
import io.idempotency.reconcile.Settlements.Page;

/**
 * The calls an operator settles, read from the ledger: pages of the unsettled calls (those that wait for a human,
 * or all of them), and the call of one key, settled or not.
 */
final class CallsToSettle {

	private final SettlementQueue ledger;

	private final int maxAttempts;

	CallsToSettle(SettlementQueue ledger, int maxAttempts) {
		this.ledger = ledger;
		this.maxAttempts = maxAttempts;
	}

	/** One page of the calls that wait for a human. */
	Page awaitingHuman(CallFilter filter) {
		return page(filter, this.maxAttempts);
	}

	/** One page of every unsettled call, waiting for a human or not. */
	Page unsettled(CallFilter filter) {
		return page(filter, 0);
	}

	private Page page(CallFilter filter, int awaitingHumanAfter) {
		List<CallRecord> calls = this.ledger.unsettled(filter.tool(), filter.olderThan(), awaitingHumanAfter,
				filter.after(), filter.limit());
		CallFilter next = (calls.size() < filter.limit()) ? null
				: filter.after(calls.get(calls.size() - 1).entry().id());
		return new Page(calls, next);
	}

	/** The call of a key, if the ledger has it. */
	Optional<CallRecord> find(IdempotencyKey key) {
		return this.ledger.record(key);
	}

	/** The call of a key; else the settlement is refused as of an unknown key, for the reason given. */
	CallRecord existing(IdempotencyKey key, String missing) {
		return find(key).orElseThrow(() -> new SettlementRefusedException(key, Reason.UNKNOWN_KEY, missing));
	}

}
