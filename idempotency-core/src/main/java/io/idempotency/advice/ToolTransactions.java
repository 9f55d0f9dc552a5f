package io.idempotency.advice;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactions transactional tools run in: at READ COMMITTED, so that a claim sees a concurrent
 * caller's committed row. Asking for an isolation level makes Spring read the connection's level at
 * every transaction, a round trip on PostgreSQL; where the pool's connections already are at READ
 * COMMITTED (PostgreSQL's and H2's default), nothing is asked for, and that round trip is saved. Were a
 * connection at a stricter level after all, a claim that lost to a concurrent caller fails with an error
 * instead of answering: nothing executes twice.
 */
final class ToolTransactions {

	private final PlatformTransactionManager transactionManager;

	private final TransactionTemplate atReadCommitted;

	private final TransactionTemplate asTheConnectionsAre;

	private volatile TransactionTemplate chosen;

	ToolTransactions(PlatformTransactionManager transactionManager) {
		this.transactionManager = transactionManager;
		this.atReadCommitted = new TransactionTemplate(transactionManager);
		this.atReadCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		this.asTheConnectionsAre = new TransactionTemplate(transactionManager);
	}

	<T> T execute(TransactionCallback<T> work) {
		TransactionTemplate transactions = this.chosen;
		if (transactions == null) {
			// Inside a caller's transaction the call joins it, whatever the level asked for; choosing would take a
			// second connection, which a small pool may not have.
			transactions = TransactionSynchronizationManager.isActualTransactionActive() ? this.atReadCommitted
					: choose();
		}
		return transactions.execute(work);
	}

	/** Chosen once, on the first transactional call: the pool's connections do not change their default. */
	private TransactionTemplate choose() {
		if (!(this.transactionManager instanceof ResourceTransactionManager resources)
				|| !(resources.getResourceFactory() instanceof DataSource dataSource)) {
			this.chosen = this.atReadCommitted;
			return this.chosen;
		}
		try (Connection connection = dataSource.getConnection()) {
			boolean readCommitted = connection.getTransactionIsolation() == Connection.TRANSACTION_READ_COMMITTED;
			this.chosen = readCommitted ? this.asTheConnectionsAre : this.atReadCommitted;
			return this.chosen;
		}
		catch (SQLException ex) {
			// The database cannot be asked now: ask for the level this time, and choose on a later call.
			return this.atReadCommitted;
		}
	}

}
