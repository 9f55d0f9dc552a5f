package io.idempotency.ledger;

import java.util.Objects;
import java.util.Optional;

import io.idempotency.key.IdempotencyKey;

/**
 * The ledger writing in the caller's transaction instead of committing on its own: the claim, the tool's
 * effect and the outcome commit or roll back together. A claim made here is invisible to other callers until
 * it commits with its outcome, so no heartbeat is kept for it, and a failure it did not write cannot be
 * overturned. A claim that loses a lock conflict is not made again: the whole transaction is gone, and that
 * is the caller's to retry. Replay counts, successes kept in memory and late completions are shared
 * with the {@link JdbcLedger} it comes from. An outcome is written to the row its claim won, by the row's id.
 */
final class CallersTransactionLedger implements CallLedger {

	private final CallStatements statements;

	private final Redaction redaction;

	private final SettledOutcomes settled;

	private final ReplayCounter replays;

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
		return this.replays.counted(this.statements.countedRequest(this.statements.claimOnce(request, storedArguments)));
	}

	@Override
	public boolean recordSucceeded(Claim.Won claim, String resultJson) {
		return record(claim, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	@Override
	public boolean recordSucceededWithoutResult(Claim.Won claim, String reason) {
		return record(claim, LedgerStatus.SUCCEEDED, null, reason);
	}

	@Override
	public boolean recordFailed(Claim.Won claim, String error) {
		return record(claim, LedgerStatus.FAILED, null, error);
	}

	@Override
	public boolean recordUnknown(Claim.Won claim, String error) {
		return record(claim, LedgerStatus.UNKNOWN, null, error);
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

	private boolean record(Claim.Won claim, LedgerStatus outcome, String resultJson, String error) {
		Objects.requireNonNull(claim, "claim");
		if (this.statements.writeOutcome(claim.rowId(), outcome, resultJson, error) == 1) {
			return true;
		}
		this.statements.lateCompletion(claim.key(), claim.rowId(), outcome);
		return false;
	}

}
