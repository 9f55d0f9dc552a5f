package io.idempotency.ledger;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.idempotency.key.IdempotencyKey;

/**
 * The ledger writing in the caller's transaction instead of committing on its own: the claim, the tool's
 * effect and the outcome commit or roll back together. A claim made here is invisible to other callers until
 * it commits with its outcome, so no heartbeat is kept for it, and a failure it did not write cannot be
 * overturned. A claim that loses a lock conflict is not made again: the whole transaction is gone, and that
 * is the caller's to retry. Replay counts, successes kept in memory and late completions are shared
 * with the {@link JdbcLedger} it comes from. An outcome is written to the row its claim here won, by the row's
 * id; one of a call claimed elsewhere, by its key.
 */
final class CallersTransactionLedger implements CallLedger {

	private final CallStatements statements;

	private final Redaction redaction;

	private final SettledOutcomes settled;

	private final ReplayCounter replays;

	/** The ids of the rows that claims made here won, by key, until their outcome is written. */
	private final Map<IdempotencyKey, Long> won = new ConcurrentHashMap<>();

	CallersTransactionLedger(CallStatements statements, Redaction redaction, SettledOutcomes settled,
			ReplayCounter replays) {
		this.statements = statements;
		this.redaction = redaction;
		this.settled = settled;
		this.replays = replays;
	}

	@Override
	public Claim claim(ClaimRequest request) {
		// A success kept in memory was read committed, on the ledger's own connection: final.
		LedgerEntry kept = this.settled.find(request.key());
		if (kept != null) {
			return this.replays.counted(this.statements.answerFrom(kept, request));
		}
		// A row read here may be this transaction's own, and may yet roll back: none is kept.
		String storedArguments = this.redaction.redact(request.arguments(), request.sensitiveNames());
		CallStatements.Claimed claimed = this.statements.claimOnce(request, storedArguments);
		if (claimed.claim() instanceof Claim.Won) {
			this.won.put(request.key(), claimed.wonId());
		}
		return this.replays.counted(claimed.claim());
	}

	@Override
	public boolean recordSucceeded(IdempotencyKey key, String resultJson) {
		return record(key, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	@Override
	public boolean recordSucceededWithoutResult(IdempotencyKey key, String reason) {
		return record(key, LedgerStatus.SUCCEEDED, null, reason);
	}

	@Override
	public boolean recordFailed(IdempotencyKey key, String error) {
		return record(key, LedgerStatus.FAILED, null, error);
	}

	@Override
	public boolean recordUnknown(IdempotencyKey key, String error) {
		return record(key, LedgerStatus.UNKNOWN, null, error);
	}

	@Override
	public void recordReplay(IdempotencyKey key) {
		this.replays.record(Objects.requireNonNull(key, "key"));
	}

	@Override
	public Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.statements.find(key);
	}

	@Override
	public Redaction redaction() {
		return this.redaction;
	}

	private boolean record(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error) {
		if (this.statements.writeOutcome(key, this.won.remove(key), outcome, resultJson, error) == 1) {
			return true;
		}
		this.statements.lateCompletion(key, outcome);
		return false;
	}

}
