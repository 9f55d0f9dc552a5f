package io.idempotency.ledger;

import java.sql.ResultSet;
import java.sql.Types;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.key.IdempotencyKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The statements of the call path, on whatever connection the template is given: claim a key (insert, or
 * read the row the insert lost to), write an outcome, and log a completion that came too late to be
 * written. Shared by the ledger on its own connection ({@link JdbcLedger}) and the one in the caller's
 * transaction ({@link CallersTransactionLedger}).
 */
final class CallStatements {

	/** Under the ledger's category: operators know its late completions and refusals by it. */
	private static final Log logger = LogFactory.getLog(JdbcLedger.class);

	/** Status, result, error, and the key or row id: every null typed, so no driver asks the server what it is. */
	private static final int[] OUTCOME_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };

	private static final int[] OVERTURN_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR };

	private final JdbcTemplate jdbc;

	private final LedgerStatements sql;

	private final LedgerDialect dialect;

	private final LedgerRows rows;

	private final AtomicLong lateCompletions = new AtomicLong();

	/** Every parameter of the claim typed as text, so that no driver asks the server what a null is. */
	private final int[] claimTypes;

	CallStatements(JdbcTemplate jdbc, LedgerStatements sql, LedgerDialect dialect, LedgerRows rows) {
		this.jdbc = jdbc;
		this.sql = sql;
		this.dialect = dialect;
		this.rows = rows;
		this.claimTypes = new int[(int) sql.claim.chars().filter((c) -> c == '?').count()];
		Arrays.fill(this.claimTypes, Types.VARCHAR);
	}

	Claim claimOnce(ClaimRequest request, String storedArguments) {
		// A row can vanish between the losing insert and the read (purged, or rolled back by its owner's
		// transaction); then the key is free again and the claim is tried anew.
		for (int attempt = 0; attempt < 3; attempt++) {
			Optional<Claim> claim = this.dialect.writesReturnRows() ? claimAndRead(request, storedArguments)
					: claimThenRead(request, storedArguments);
			if (claim.isPresent()) {
				return claim.get();
			}
		}
		throw new IllegalStateException("The claim of " + request.key() + " neither won nor found the row it lost to");
	}

	/** One statement that inserts the claim or reads the row it loses to. */
	private Optional<Claim> claimAndRead(ClaimRequest request, String storedArguments) {
		Object[] values = this.dialect.claimValues(request, storedArguments);
		Optional<Claim> claim = this.jdbc.query(this.sql.claim, values, this.claimTypes,
				(ResultSet row) -> {
					row.next();
					// Columns by position: won_id, then the answer columns.
					row.getLong(1);
					if (!row.wasNull()) {
						return Optional.of(new Claim.Won(request.key()));
					}
					row.getLong(2);
					return row.wasNull() ? Optional.<Claim>empty()
							: Optional.of(answerFrom(this.rows.answerEntry(row, 2, request, storedArguments), request));
				});
		if (claim.isPresent()) {
			return claim;
		}
		// The read found no row, yet the insert lost: a concurrent claim committed after this statement's
		// snapshot was taken, and the insert, which sees it, stood back. Read it in a statement of its own.
		return findClaimed(request, storedArguments);
	}

	/** An insert that inserts nothing, or fails on the unique key, when it loses, and a read when it has lost. */
	private Optional<Claim> claimThenRead(ClaimRequest request, String storedArguments) {
		if (insert(request, storedArguments)) {
			return Optional.of(new Claim.Won(request.key()));
		}
		return findClaimed(request, storedArguments);
	}

	Optional<Claim> findClaimed(ClaimRequest request, String storedArguments) {
		return this.jdbc.query(this.sql.findClaimed, (row, n) -> this.rows.answerEntry(row, 1, request, storedArguments),
				request.key().value()).stream().findFirst().map((entry) -> answerFrom(entry, request));
	}

	private boolean insert(ClaimRequest request, String storedArguments) {
		Object[] values = this.dialect.claimValues(request, storedArguments);
		try {
			return this.jdbc.update(this.sql.claim, values, this.claimTypes) == 1;
		}
		catch (DuplicateKeyException lost) {
			return false;
		}
	}

	Claim answerFrom(LedgerEntry existing, ClaimRequest request) {
		if (!Objects.equals(existing.userId(), request.userId())) {
			logger.warn("A call of tool '" + request.tool() + "' in run '" + request.runId() + "' lost its claim on key "
					+ request.key() + " to a row of another user; refusing it without revealing that row. Two users"
					+ " sharing a run id is a bug in the application or an attack.");
			return new Claim.HeldByAnotherUser(request.key());
		}
		return switch (existing.status()) {
			case SUCCEEDED -> new Claim.Replay(existing);
			case FAILED -> new Claim.PreviousAttemptFailed(existing);
			case ATTEMPTING, UNKNOWN -> new Claim.InProgress(existing);
		};
	}

	/** Writes the outcome of a call whose row is still attempting; how many rows it wrote (0 or 1). */
	int writeOutcome(IdempotencyKey key, LedgerStatus outcome, String resultJson, String error) {
		return this.jdbc.update(this.sql.recordOutcome,
				new Object[] { outcome.columnValue(), resultJson, LedgerRows.truncate(error), key.value() }, OUTCOME_TYPES);
	}

	/** Writes a success over a failure that a reconciler recorded while the call still ran (0 or 1 rows). */
	int overturnFailure(IdempotencyKey key, String resultJson, String reason) {
		return this.jdbc.update(this.sql.overturnFailure,
				new Object[] { resultJson, LedgerRows.truncate(reason), key.value() }, OVERTURN_TYPES);
	}

	/** The row of a key, if there is one. */
	Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.jdbc.query(this.sql.findByKey, this.rows::entry, key.value()).stream().findFirst();
	}

	/** Counts and logs an outcome that was not written because the row had been settled meanwhile. */
	void lateCompletion(IdempotencyKey key, LedgerStatus outcome) {
		this.lateCompletions.incrementAndGet();
		String found = find(key).map((entry) -> "is already " + entry.status().columnValue()).orElse("no longer exists");
		logger.warn("Late completion of key " + key + ": the call ended " + outcome.columnValue()
				+ ", but its ledger row " + found + "; the row is left as it is");
	}

	long lateCompletions() {
		return this.lateCompletions.get();
	}

}
