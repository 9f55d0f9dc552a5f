package io.idempotency.test;

import java.time.Instant;

import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;

/** A row of the {@link InMemoryLedger}: a claimed call and what became of it, under the ledger's lock. */
final class InMemoryRow {

	final long id;

	final ClaimRequest request;

	final String userId;

	final String tool;

	final String arguments;

	final Instant startedAt;

	LedgerStatus status = LedgerStatus.ATTEMPTING;

	String result;

	String error;

	Instant finishedAt;

	int attempts;

	String owner;

	Instant reconcileAfter;

	String decidedBy;

	Instant decidedAt;

	String decisionReason;

	InMemoryRow(long id, ClaimRequest request, String arguments, Instant startedAt) {
		this.id = id;
		this.request = request;
		this.userId = request.userId();
		this.tool = request.tool();
		this.arguments = arguments;
		this.startedAt = startedAt;
	}

	void settle(LedgerStatus outcome, String resultJson, String error, Instant at) {
		this.status = outcome;
		this.result = resultJson;
		this.error = truncated(error);
		this.finishedAt = at;
	}

	void decide(LedgerStatus decision, String by, String reason, Instant at) {
		this.status = decision;
		this.decidedBy = by;
		this.decisionReason = truncated(reason);
		this.decidedAt = at;
	}

	private static String truncated(String text) {
		return (text == null || text.length() <= JdbcLedger.MAX_ERROR_LENGTH) ? text
				: text.substring(0, JdbcLedger.MAX_ERROR_LENGTH);
	}

	LedgerEntry entry(int replays) {
		return new LedgerEntry(this.id, this.request.key(), this.request.runId(), this.userId, this.tool,
				this.arguments, this.status, this.result, this.error, this.startedAt, this.finishedAt, replays,
				this.attempts, this.owner);
	}

}
