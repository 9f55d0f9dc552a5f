package io.idempotency.ledger;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.idempotency.key.IdempotencyKey;

/** Ledger rows read by column position, and the checks and conversions of the values the ledger writes. */
final class LedgerRows {

	private final LedgerDialect dialect;

	LedgerRows(LedgerDialect dialect) {
		this.dialect = dialect;
	}

	/** A row of {@link LedgerStatements#COLUMNS}, read by position in that order. */
	LedgerEntry entry(ResultSet row, int rowNumber) throws SQLException {
		return new LedgerEntry(row.getLong(1), new IdempotencyKey(row.getString(2)), row.getString(3), row.getString(4),
				row.getString(5), row.getString(6), LedgerStatus.ofColumnValue(row.getString(7)), row.getString(8),
				row.getString(9), this.dialect.timestamp(row, 10), this.dialect.timestamp(row, 11), row.getInt(12),
				row.getInt(13), row.getString(14));
	}

	/**
	 * A row as a lost claim reads it: {@link LedgerStatements#ANSWER_COLUMNS} by position, from column
	 * {@code first}. The key, run, tool and arguments are the claim's own.
	 */
	LedgerEntry answerEntry(ResultSet row, int first, ClaimRequest request, String storedArguments)
			throws SQLException {
		return new LedgerEntry(row.getLong(first), request.key(), request.runId(), row.getString(first + 1),
				request.tool(), storedArguments, LedgerStatus.ofColumnValue(row.getString(first + 2)),
				row.getString(first + 3), row.getString(first + 4), this.dialect.timestamp(row, first + 5),
				this.dialect.timestamp(row, first + 6), row.getInt(first + 7), row.getInt(first + 8),
				row.getString(first + 9));
	}

	static String requireLease(LedgerEntry leased) {
		if (leased.reconcileOwner() == null) {
			throw new IllegalArgumentException("Row " + leased.id() + " was not leased: take rows with leaseStale");
		}
		return leased.reconcileOwner();
	}

	/** The text cut to what the ledger keeps, never between the two halves of a character. */
	static String truncate(String error) {
		if (error == null || error.length() <= JdbcLedger.MAX_ERROR_LENGTH) {
			return error;
		}
		int end = JdbcLedger.MAX_ERROR_LENGTH;
		return error.substring(0, Character.isHighSurrogate(error.charAt(end - 1)) ? end - 1 : end);
	}

	static long micros(Duration duration) {
		return TimeUnit.MICROSECONDS.convert(duration);
	}

	static void requireNotNegative(Duration duration, String name) {
		if (duration == null || duration.isNegative()) {
			throw new IllegalArgumentException(name + " must be zero or more, but was " + duration);
		}
	}

	static void requirePositive(Duration duration, String name) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(name + " must be more than zero, but was " + duration);
		}
	}

}
