package io.idempotency.ledger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.idempotency.key.IdempotencyKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the outcomes of calls on the ledger's own connection: one on its caller's thread, or a batch of them
 * behind their callers. Only a row still attempting is written; a success whose row a reconciler resolved
 * failed while the call still ran is written over that failure; any other outcome that finds its row settled
 * is a late completion, logged and counted.
 */
final class OutcomeWrites {

	/** Under the ledger's category: operators know its late successes and lost outcomes by it. */
	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** What a row says of a result the database refused, when written behind its caller. */
	static final String REFUSED_RESULT = "The result is not stored: the database refused it";

	private final CallStatements statements;

	private final OwnTransactions transactions;

	private final AtomicLong lateSuccesses = new AtomicLong();

	OutcomeWrites(CallStatements statements, OwnTransactions transactions) {
		this.statements = statements;
		this.transactions = transactions;
	}

	/**
	 * Writes an outcome now, on the row the call's claim won, by its id. A write that loses a deadlock (on Galera,
	 * fails certification) is made again.
	 * @param rowId the id of the row the call's claim won
	 * @param holdsClaim whether the call still holds its claim (it was claimed through this ledger, and has
	 * recorded nothing yet): only then may a success overturn a failure
	 * @return whether it was written; {@code false} for a late completion
	 */
	boolean write(IdempotencyKey key, long rowId, boolean holdsClaim, LedgerStatus outcome, String resultJson,
			String error) {
		int updated = this.transactions.committedAgainAfterDeadlocks(
				() -> this.statements.writeOutcome(rowId, outcome, resultJson, error));
		return updated == 1 || notWritten(key, rowId, holdsClaim, outcome, resultJson, error);
	}

	/**
	 * An outcome whose row was no longer attempting. Only a reconciler (or a person) can have settled a row
	 * whose claim this call holds: a failure it wrote meant that no effect was found while the call still ran,
	 * and a success overturns it. Anything else (a row deleted, a second outcome of one call) is a late
	 * completion.
	 * @return whether the success was written over a failure
	 */
	private boolean notWritten(IdempotencyKey key, long rowId, boolean holdsClaim, LedgerStatus outcome,
			String resultJson, String error) {
		if (outcome == LedgerStatus.SUCCEEDED && holdsClaim) {
			int overturned = this.transactions.committedAgainAfterDeadlocks(
					() -> this.statements.overturnFailure(rowId, resultJson, error));
			if (overturned == 1) {
				// No instance kept the failure: only successes are kept, so every repeat reads this one.
				this.lateSuccesses.incrementAndGet();
				logger.atWarn()
					.addKeyValue("idempotency.key", key.value())
					.addKeyValue("idempotency.status", LedgerStatus.SUCCEEDED.columnValue())
					.log("Late success of key {}: its ledger row had been resolved failed while the call still ran"
							+ " (no effect was found then); the success is recorded over it", key);
				return true;
			}
		}
		this.statements.lateCompletion(key, rowId, outcome);
		return false;
	}

	/**
	 * Writes a batch of outcomes that waited behind their callers, each the row its call claimed with the
	 * outcome in it: one JDBC batch in one transaction of the ledger's own, rows in the order of their ids (so
	 * that two writers of the same rows take their locks in the same order). Where the batch fails, each outcome
	 * is written alone, so that one the database refuses (a result too large for it, say) costs no other its
	 * write; a result refused is recorded as not stored, as on the caller's path, but without the database's
	 * message, which may quote it. An outcome that cannot be written at all is logged and left to the
	 * reconciler. Never throws.
	 * @param ended told of each outcome once it is written or given up on
	 */
	void writeBatch(List<LedgerEntry> outcomes, Consumer<LedgerEntry> ended) {
		if (outcomes.isEmpty()) {
			return;
		}
		List<LedgerEntry> batch = new ArrayList<>(outcomes);
		batch.sort(Comparator.comparingLong(LedgerEntry::id));
		int[] updated;
		try {
			updated = this.transactions.batchCommittedAgainAfterDeadlocks(() -> this.statements.writeOutcomes(batch));
		}
		catch (RuntimeException batchFailed) {
			// Not the database's message: a driver's may quote the statement with its values, the results among them.
			logger.atDebug()
				.log("A batch of {} call outcomes failed ({}) and each is written alone", batch.size(),
						DatabaseErrors.causeChain(batchFailed).stream().map((cause) -> cause.getClass().getName()).toList());
			for (LedgerEntry outcome : batch) {
				try {
					writeAlone(outcome);
				}
				finally {
					ended.accept(outcome);
				}
			}
			return;
		}
		for (int i = 0; i < batch.size(); i++) {
			LedgerEntry outcome = batch.get(i);
			try {
				if (updated[i] != 1 && !writtenAsBatched(outcome, updated[i])) {
					notWritten(outcome.key(), outcome.id(), true, outcome.status(), outcome.result(), outcome.error());
				}
			}
			catch (RuntimeException ex) {
				notRecorded(outcome, ex);
			}
			finally {
				ended.accept(outcome);
			}
		}
	}

	/**
	 * Whether a batched write whose count the driver did not report ({@link java.sql.Statement#SUCCESS_NO_INFO})
	 * wrote the outcome: the row of its id holds it.
	 */
	private boolean writtenAsBatched(LedgerEntry outcome, int updated) {
		if (updated != java.sql.Statement.SUCCESS_NO_INFO) {
			return false;
		}
		return this.transactions.committed(() -> this.statements.find(outcome.key()))
			.filter((row) -> row.id() == outcome.id() && row.status() == outcome.status())
			.isPresent();
	}

	/** An outcome of a batch that failed, written on its own. */
	private void writeAlone(LedgerEntry outcome) {
		try {
			write(outcome.key(), outcome.id(), true, outcome.status(), outcome.result(), outcome.error());
		}
		catch (RuntimeException ex) {
			if (outcome.status() == LedgerStatus.SUCCEEDED && outcome.result() != null
					&& DatabaseErrors.isRefusedData(ex)) {
				try {
					// Never a stored null that a replay would pass off as the result: the row says it is missing.
					write(outcome.key(), outcome.id(), true, LedgerStatus.SUCCEEDED, null, REFUSED_RESULT);
					logger.atWarn()
						.addKeyValue("idempotency.tool", outcome.tool())
						.addKeyValue("idempotency.key", outcome.key().value())
						.addKeyValue("idempotency.run", outcome.runId())
						.log("The result of tool '{}' (key {}) could not be stored, so the call is recorded as done"
								+ " without it: {}", outcome.tool(), outcome.key(), ex.getClass().getName());
					return;
				}
				catch (RuntimeException again) {
					ex.addSuppressed(again);
				}
			}
			notRecorded(outcome, ex);
		}
	}

	private static void notRecorded(LedgerEntry outcome, RuntimeException ex) {
		logger.atError()
			.setCause(ex)
			.addKeyValue("idempotency.tool", outcome.tool())
			.addKeyValue("idempotency.key", outcome.key().value())
			.addKeyValue("idempotency.run", outcome.runId())
			.addKeyValue("idempotency.status", outcome.status().columnValue())
			.log("Tool '{}' ended {}, but its outcome could not be recorded (key {}); the reconciler will settle it",
					outcome.tool(), outcome.status().columnValue(), outcome.key());
	}

	/** How many successes were written over a reconciler's failure. */
	long lateSuccesses() {
		return this.lateSuccesses.get();
	}

}
