package io.idempotency.ledger;

import java.util.List;
import java.util.Objects;

import io.idempotency.key.IdempotencyKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the outcomes of calls on the ledger's own connection: behind their callers where write-behind is on
 * and the call was claimed here, else on the caller's path; either way the call has ended here once its outcome
 * is written or given up on. Meanwhile, the outcome of a key that waits to be written answers a repeat made here.
 */
final class CallOutcomes {

	/** Under the ledger's category: operators know its outcomes left unwritten by it. */
	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	private final OutcomeWrites writes;

	private final CallsInFlight inFlight;

	/** The outcomes waiting to be written behind their callers; {@code null} where write-behind is off. */
	private final PendingOutcomes pending;

	private final TableName table;

	CallOutcomes(OutcomeWrites writes, CallsInFlight inFlight, OutcomeWriteBehind writeBehind, TableName table) {
		this.writes = writes;
		this.inFlight = inFlight;
		this.table = table;
		this.pending = writeBehind.enabled() ? new PendingOutcomes(writeBehind, this::writeBehind, this::ended) : null;
	}

	/**
	 * Records an outcome of a claimed call: queued behind its caller where it was claimed here and the queue takes
	 * it, else written now, on the row its claim won.
	 * @return whether the outcome was recorded; {@code false} for a late completion that was not written
	 */
	boolean record(Claim.Won claim, LedgerStatus outcome, String resultJson, String error) {
		Objects.requireNonNull(claim, "claim");
		// A call that claimed here and has recorded nothing yet is in flight, under the id of its row, and holds its
		// claim. One claimed through another ledger object is written on its row all the same, by the claim's id, on
		// the caller's path; never over a reconciler's failure, which this ledger cannot tell it held its claim for.
		LedgerEntry held = this.inFlight.outcome(claim, outcome, resultJson, LedgerRows.truncate(error));
		if (held != null && this.pending != null && this.pending.offer(held)) {
			// Written behind the caller; until then the call is beaten for as running, and answered from memory.
			return true;
		}
		try {
			return this.writes.write(claim.key(), claim.rowId(), held != null, outcome, resultJson, error);
		}
		finally {
			// Recorded or not, the call has ended here: a row left attempting is the reconciler's, not ours.
			if (held != null) {
				this.inFlight.ended(claim.key(), claim.rowId());
			}
		}
	}

	/**
	 * The success or failure that waits to be written to the row of the key's latest claim here, or {@code null}.
	 * An outcome of an earlier claim of the key (whose row was deleted while its call ran) answers nothing: the
	 * key's row is the later claim's. A waiting outcome unknown answers nothing either: the table's row says since
	 * when the call has been in progress.
	 */
	LedgerEntry waiting(IdempotencyKey key) {
		if (this.pending == null) {
			return null;
		}
		Long latest = this.inFlight.latestRow(key);
		LedgerEntry waiting = (latest != null) ? this.pending.find(latest) : null;
		return (waiting != null && waiting.status() != LedgerStatus.UNKNOWN) ? waiting : null;
	}

	/**
	 * Writes a batch of outcomes that waited behind their callers, at any time, a flush of the replay counts
	 * running or not: a flush locks only rows that are free and waits on none, so the two never deadlock, and a
	 * batch waits on a flush only for the flush's own short transaction. (Shared, one lock made a batch wait
	 * for as long as a flush waited on a running transactional call's row.)
	 */
	private void writeBehind(List<LedgerEntry> batch) {
		this.writes.writeBatch(batch, this::ended);
	}

	/** A call whose outcome has been written, or given up on: no longer beaten for, nor answered from memory. */
	private void ended(LedgerEntry outcome) {
		this.inFlight.ended(outcome.key(), outcome.id());
		this.pending.written(outcome);
	}

	/** How many successes were written over a reconciler's failure. */
	long lateSuccesses() {
		return this.writes.lateSuccesses();
	}

	/** How many outcomes wait to be written behind their callers ({@code 0} where write-behind is off). */
	int waitingCount() {
		return (this.pending != null) ? this.pending.size() : 0;
	}

	/** Writes every outcome that waits behind its caller now, and returns once each is written or given up on. */
	void writeWaiting() {
		if (this.pending != null) {
			this.pending.flush();
		}
	}

	/**
	 * Stops writing behind callers (later outcomes are written by their callers) and writes those still waiting,
	 * for {@link PendingOutcomes#CLOSE_TIMEOUT} at most; logs how many were left unwritten.
	 */
	void close() {
		if (this.pending != null) {
			int left = this.pending.close();
			if (left > 0) {
				logger.atWarn()
					.addKeyValue("idempotency.table", this.table.toString())
					.log("{} call outcomes were still not written when the idempotency ledger (table {}) closed, after"
							+ " {}; their rows stay attempting, and the reconciler settles them", left, this.table,
							PendingOutcomes.CLOSE_TIMEOUT);
			}
		}
	}

}
