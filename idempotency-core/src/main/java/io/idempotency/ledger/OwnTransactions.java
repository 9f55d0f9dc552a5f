package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The ledger's own transactions: its writes commit when they return, whatever the caller's transaction does
 * and whatever the pool's auto-commit setting.
 */
final class OwnTransactions {

	private static final Logger logger = LoggerFactory.getLogger(OwnTransactions.class);

	/** How often the ledger's work runs in all while the database fails it with serialization failures. */
	static final int SERIALIZATION_ATTEMPTS = 5;

	/** How often a conditional write is made in all while the database picks it as a deadlock's victim. */
	static final int DEADLOCK_ATTEMPTS = 6;

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final TransactionTemplate ownTransaction;

	OwnTransactions(DataSource dataSource, JdbcTemplate jdbc) {
		this.dataSource = dataSource;
		this.jdbc = jdbc;
		// A commit that fails is translated as the ledger's statements are: a certification failure at the commit
		// of a write on Galera (or any deadlock or serialization failure there) is then a lock conflict that the
		// claim and the outcome write handle, not a TransactionSystemException.
		JdbcTransactionManager transactionManager = new JdbcTransactionManager(dataSource);
		transactionManager.setExceptionTranslator(jdbc.getExceptionTranslator());
		this.ownTransaction = new TransactionTemplate(transactionManager);
		this.ownTransaction.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.ownTransaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
	}

	/**
	 * Work in a new transaction of the ledger's own, at READ COMMITTED, the caller's suspended; run again, whole,
	 * after a serialization failure.
	 */
	<T> T execute(TransactionCallback<T> work) {
		return retryingSerializationFailures(() -> this.ownTransaction.execute(work));
	}

	/** As {@link #execute}, for work without a result. */
	void executeWithoutResult(Consumer<TransactionStatus> work) {
		retryingSerializationFailures(() -> {
			this.ownTransaction.executeWithoutResult(work);
			return null;
		});
	}

	/**
	 * Runs ledger statements so that they are committed when this returns, whatever the caller's transaction
	 * does and whatever the pool's auto-commit setting. Outside any Spring-managed transaction they run on
	 * one connection of their own: with auto-commit on, each statement commits itself and nothing is added;
	 * with it off (a common setting of pools used with JPA), the ledger commits them itself. Inside a
	 * transaction, they run in a new transaction of their own, with the caller's suspended.
	 */
	<T> T committed(Supplier<T> statements) {
		return retryingSerializationFailures(() -> {
			if (TransactionSynchronizationManager.isSynchronizationActive()
					|| TransactionSynchronizationManager.hasResource(this.dataSource)) {
				return inOwnTransaction(statements);
			}
			return onOwnConnection(statements);
		});
	}

	/**
	 * As {@link #committed}, for a conditional write of one row that the database may roll back as a deadlock's
	 * victim (MariaDB's and MySQL's locks on a row and its indexes when several write it at once; on Galera, a
	 * write that another node's commit overtook fails its certification, reported as a deadlock): the write is
	 * made again, up to {@value #DEADLOCK_ATTEMPTS} times in all, each after a short random pause; then the
	 * deadlock is the caller's. The write states what the row must be, so making it again never writes twice.
	 * @return the rows the write changed
	 */
	int committedAgainAfterDeadlocks(Supplier<Integer> write) {
		return againAfterDeadlocks(() -> committed(write));
	}

	/**
	 * As {@link #committedAgainAfterDeadlocks}, for a batch of conditional writes in one transaction of the
	 * ledger's own: rolled back whole and made again after a deadlock.
	 * @return each write's count of rows changed, as the driver reports it
	 */
	int[] batchCommittedAgainAfterDeadlocks(Supplier<int[]> writes) {
		return againAfterDeadlocks(() -> execute((status) -> writes.get()));
	}

	private <T> T againAfterDeadlocks(Supplier<T> work) {
		for (int attempt = 1;; attempt++) {
			try {
				return work.get();
			}
			catch (PessimisticLockingFailureException ex) {
				if (attempt >= DEADLOCK_ATTEMPTS || !DatabaseErrors.isDeadlock(ex)) {
					throw ex;
				}
				logger.atDebug().log("A ledger write lost a deadlock and is made again: {}", String.valueOf(ex));
				RetryPause.before(attempt, ex);
			}
		}
	}

	/**
	 * Runs the ledger's work again after a serialization failure (the database rolled its transaction back
	 * because of a concurrent one, and asks for it to be run again: distributed SQL engines do as a normal
	 * outcome of concurrency), a few times, each after a short random pause that grows with each attempt; then
	 * the failure is the caller's. The ledger's work is one statement, or one transaction, so running it again
	 * repeats nothing that was committed.
	 */
	static <T> T retryingSerializationFailures(Supplier<T> work) {
		for (int attempt = 1;; attempt++) {
			try {
				return work.get();
			}
			catch (RuntimeException ex) {
				if (attempt >= SERIALIZATION_ATTEMPTS || !DatabaseErrors.isSerializationFailure(ex)) {
					throw ex;
				}
				RetryPause.before(attempt, ex);
			}
		}
	}

	private <T> T inOwnTransaction(Supplier<T> statements) {
		try {
			return this.ownTransaction.execute((status) -> statements.get());
		}
		catch (CannotCreateTransactionException ex) {
			// A pool with no connection left is the common cause: every caller holds one in its own transaction.
			throw new CannotCreateTransactionException("The idempotency ledger could not get a connection of its own"
					+ " while the caller's transaction holds one. A ledger write inside a caller's transaction needs a"
					+ " second connection: size the pool above the number of calls that can run inside transactions at"
					+ " once (" + ex.getMessage() + ")", ex);
		}
	}

	private <T> T onOwnConnection(Supplier<T> statements) {
		Connection connection = ownConnection();
		TransactionSynchronizationManager.bindResource(this.dataSource, new ConnectionHolder(connection));
		boolean autoCommit = true;
		try {
			autoCommit = connection.getAutoCommit();
			T result = statements.get();
			if (!autoCommit) {
				connection.commit();
			}
			return result;
		}
		catch (SQLException ex) {
			rollback(connection, autoCommit, ex);
			throw this.jdbc.getExceptionTranslator().translate("Committing the idempotency ledger's writes", null, ex);
		}
		catch (RuntimeException | Error ex) {
			rollback(connection, autoCommit, ex);
			throw ex;
		}
		finally {
			TransactionSynchronizationManager.unbindResource(this.dataSource);
			release(connection);
		}
	}

	/**
	 * A connection from the pool, outside any transaction: as {@link DataSourceUtils#getConnection} gives one there,
	 * without its lookup of a transaction's connection (there is none, as {@link #committed} checked) and its
	 * debug message, written through the logging bridge on every call.
	 */
	private Connection ownConnection() {
		Connection connection;
		try {
			connection = this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			throw new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection", ex);
		}
		catch (IllegalStateException ex) {
			// A routing DataSource that finds no target for the thread throws it: the ledger is unavailable, as for
			// a pool that cannot give a connection.
			throw new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection", ex);
		}
		if (connection == null) {
			throw new CannotGetJdbcConnectionException("Failed to obtain JDBC Connection",
					new IllegalStateException("DataSource returned null from getConnection(): " + this.dataSource));
		}
		return connection;
	}

	/** Gives the connection back, as {@link DataSourceUtils#releaseConnection} does once it is no longer bound. */
	private void release(Connection connection) {
		try {
			DataSourceUtils.doCloseConnection(connection, this.dataSource);
		}
		catch (Throwable ex) {
			// As releaseConnection: a connection that fails to close fails nothing the statements did.
			logger.atDebug().setCause(ex).log("Could not close the idempotency ledger's JDBC connection");
		}
	}

	private static void rollback(Connection connection, boolean autoCommit, Throwable failure) {
		if (autoCommit) {
			return;
		}
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
	}

}
