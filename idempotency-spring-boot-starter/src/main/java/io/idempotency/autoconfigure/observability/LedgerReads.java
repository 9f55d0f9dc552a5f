package io.idempotency.autoconfigure.observability;

import java.time.Duration;
import java.util.function.Supplier;

import io.idempotency.ledger.JdbcLedger;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionTimedOutException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Reads of the ledger that end within a timeout, for health, the endpoint and the gauge: each runs in a
 * transaction of its own on the ledger's {@code DataSource}, one connection for all its statements, whose timeout
 * bounds them: JdbcTemplate gives each statement the time left as its JDBC query timeout (whole seconds), and
 * the driver cancels a statement that waits longer, for a lock as for anything else (PostgreSQL sends a cancel
 * request; MariaDB's driver runs it under {@code max_statement_time}). H2's exclusive mode ({@code SET EXCLUSIVE})
 * holds a read until it ends, whatever its timeout.
 */
final class LedgerReads {

	private final TransactionTemplate transactions;

	private final String table;

	private final Duration timeout;

	/** @param timeout a whole number of seconds, at least one */
	LedgerReads(JdbcLedger ledger, Duration timeout) {
		if (timeout.toSeconds() < 1 || timeout.getNano() != 0) {
			// JDBC's query timeouts are whole seconds: 0 is none, and a transaction timeout of 0 times out at once.
			throw new IllegalArgumentException("The timeout of the ledger's reads must be a whole number of seconds,"
					+ " at least 1s (idempotency.health.timeout), but was " + timeout);
		}
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(ledger.dataSource()));
		this.transactions.setTimeout(Math.toIntExact(timeout.toSeconds()));
		this.table = ledger.tableName();
		this.timeout = timeout;
	}

	/**
	 * The reading's value.
	 * @throws NotAnswered if the ledger's table did not answer within the timeout
	 */
	<T> T read(Supplier<T> reading) {
		try {
			return this.transactions.execute((status) -> reading.get());
		}
		catch (QueryTimeoutException | TransactionTimedOutException ex) {
			throw notAnswered(ex);
		}
	}

	Duration timeout() {
		return this.timeout;
	}

	NotAnswered notAnswered(Throwable cause) {
		return new NotAnswered("The ledger's table " + this.table + " did not answer within " + this.timeout
				+ " (idempotency.health.timeout): is it locked by a migration, a VACUUM FULL or a LOCK TABLE?", cause);
	}

	/** The ledger's table did not answer within the timeout. */
	static final class NotAnswered extends RuntimeException {

		private static final long serialVersionUID = 1L;

		NotAnswered(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
