package io.idempotency.advice;

import io.idempotency.ToolCallInProgressException;
import io.idempotency.Answer;
import io.idempotency.ToolResult;
import io.idempotency.LedgerUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;

import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.DatabaseErrors;

import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs the calls of transactional tools: claim, effect and outcome in one transaction of the ledger's
 * {@code DataSource}, the caller's when it holds one at READ COMMITTED or below, else one of its own. Identical
 * callers that lose a lock conflict to a running call are told it is in progress. A repeat answered from the
 * row it lost to (a replay, or a refusal) leaves the transaction to commit: only a failure of the tool's body,
 * or of the database, rolls it back.
 */
final class TransactionalCalls {

	private static final String DECLARE_TRANSACTION_MANAGER = "Declare a transaction manager of the ledger's"
			+ " DataSource (new JdbcTransactionManager(dataSource)); with the Spring Boot starter, where there are"
			+ " several, name it with idempotency.transaction-manager";

	/** How often a transactional call claims anew after a deadlock among identical callers. */
	private static final int CLAIM_ATTEMPTS = 3;

	/** How often a transactional call runs in all while its transaction fails with serialization failures. */
	private static final int SERIALIZATION_ATTEMPTS = 5;

	/** The unit of the back-off between those runs, in milliseconds. */
	private static final long SERIALIZATION_BACKOFF_MILLIS = 10;

	private final JdbcLedger ledger;

	private final PlatformTransactionManager transactionManager;

	private final ToolTransactions transactions;

	private final String problem;

	private final CallReports reports;

	/** The claim and the call, on the ledger it is given: the caller's transaction's. */
	@FunctionalInterface
	interface ClaimedCall {

		/** The call's result, or the answer of a repeat: a value, or a {@link Repeats.Refusal} to throw. */
		Object claimAndCall(CallLedger ledger) throws Throwable;

	}

	TransactionalCalls(CallLedger ledger, PlatformTransactionManager transactionManager, CallReports reports) {
		// Only a ledger on a database can write in a transaction of its DataSource.
		this.ledger = (ledger instanceof JdbcLedger jdbc) ? jdbc : null;
		this.transactionManager = transactionManager;
		this.reports = reports;
		this.problem = problemOf(this.ledger, transactionManager);
		this.transactions = (this.problem == null) ? new ToolTransactions(transactionManager) : null;
	}

	private static String problemOf(JdbcLedger ledger, PlatformTransactionManager transactionManager) {
		if (ledger == null) {
			return "the ledger is not on a database, so the claim and the tool's effect cannot commit together."
					+ " Declare a JdbcLedger on the DataSource the tool writes to";
		}
		if (transactionManager == null) {
			return "no single transaction manager of the ledger's DataSource was found (there is none, or there are"
					+ " several and none is primary). " + DECLARE_TRANSACTION_MANAGER;
		}
		if (!ledger.joinsTransactionsOf(transactionManager)) {
			return "its transaction manager (" + transactionManager.getClass().getSimpleName() + ") does not hold"
					+ " connections of the ledger's DataSource, so the claim and the tool's effect would commit"
					+ " separately. " + DECLARE_TRANSACTION_MANAGER;
		}
		return null;
	}

	boolean supported() {
		return this.transactions != null;
	}

	/**
	 * Why transactional tools cannot run and what to do, in words that follow "is transactional, but"; {@code null}
	 * if they can.
	 */
	String problem() {
		return this.problem;
	}

	Object call(ToolDescriptor tool, ClaimRequest request, ClaimedCall call) throws Throwable {
		if (this.transactions == null) {
			throw new IllegalStateException("Tool '" + tool.name() + "' is transactional, but " + this.problem
					+ ". Nothing was executed");
		}
		ConnectionHolder callers = callersConnection(tool);
		boolean joinsCallersTransaction = callers != null;
		if (joinsCallersTransaction) {
			checkCallersIsolation(tool, callers);
		}
		CallLedger joined = this.ledger.inCallersTransaction();
		int contended = 0;
		int serializationFailures = 0;
		while (true) {
			// The answers of an attempt are told once it ends: never those of an attempt that runs again.
			boolean holding = this.reports.hold();
			Throwable failure;
			try {
				Object result = this.transactions.execute((status) -> {
					try {
						return call.claimAndCall(joined);
					}
					catch (RuntimeException | Error ex) {
						throw ex;
					}
					catch (Throwable ex) {
						throw new CheckedFailure(ex);
					}
				});
				release(holding, true);
				// A refusal leaves the transaction as a value and is thrown only now: thrown inside it, it would
				// mark a caller's transaction rollback-only, losing the caller's own work, though nothing ran.
				return Repeats.given(result);
			}
			catch (CheckedFailure ex) {
				failure = ex.getCause();
			}
			catch (RuntimeException | Error ex) {
				failure = ex;
			}
			if (failure instanceof CannotCreateTransactionException ex) {
				// No connection for the transaction: nothing was claimed, nothing ran.
				release(holding, false);
				throw this.reports.ledgerUnavailable(tool, request, ex);
			}
			if (failure instanceof ClaimContended ex && !DatabaseErrors.isSerializationFailure(ex)) {
				// A deadlock among callers that waited on a winner which rolled back: the key may be free again,
				// and this transaction is gone, so claim anew. A lock wait that timed out means the winner is
				// still running: that is an answer.
				release(holding, false);
				if (joinsCallersTransaction || ex.winnerStillRunning() || ++contended >= CLAIM_ATTEMPTS) {
					return inProgress(tool, request);
				}
				continue;
			}
			if (DatabaseErrors.isSerializationFailure(failure)) {
				// The database rolled the whole transaction back (claim, effect and outcome): nothing of it
				// happened, so it runs again, after a short random pause that grows with each attempt.
				release(holding, false);
				if (joinsCallersTransaction) {
					// The caller's transaction is rolled back: its owner runs it again.
					this.reports.tell(tool, request, Answer.FAILED);
					throw (failure instanceof ClaimContended contention) ? contention.getCause() : failure;
				}
				if (++serializationFailures >= SERIALIZATION_ATTEMPTS) {
					if (failure instanceof ClaimContended) {
						// A claim that keeps conflicting: as one that keeps losing lock conflicts.
						return inProgress(tool, request);
					}
					throw this.reports.ledgerUnavailable(tool, request, (Exception) failure);
				}
				if (!Pause.beforeAttempt(serializationFailures, SERIALIZATION_BACKOFF_MILLIS)) {
					throw this.reports.ledgerUnavailable(tool, request, (Exception) failure);
				}
				continue;
			}
			release(holding, true);
			// A claim that failed on a lost connection, whose rollback then failed too: the claim's failure is the
			// answer (the server rolls back what a lost connection had not committed).
			if (failure instanceof TransactionSystemException system
					&& system.getApplicationException() instanceof LedgerUnavailableException unavailable) {
				unavailable.addSuppressed(system);
				throw unavailable;
			}
			throw failure;
		}
	}

	/** A repeat answered as in progress: a replay, counted as the ledger counts a lost claim. */
	private Object inProgress(ToolDescriptor tool, ClaimRequest request) {
		this.ledger.recordReplay(request.key());
		this.reports.tell(tool, request, Answer.IN_PROGRESS);
		if (tool.envelope()) {
			return ToolResult.inProgress(null);
		}
		throw new ToolCallInProgressException(tool.name(), null);
	}

	/** Ends holding this attempt's answers, if this call began it: tells them, or drops them. */
	private void release(boolean holding, boolean tell) {
		if (holding) {
			this.reports.release(tell);
		}
	}

	/**
	 * The connection of the ledger's {@code DataSource} that a caller's transaction holds, which the call
	 * joins; {@code null} outside a transaction, or in one that holds none (on another {@code DataSource}: the
	 * call then runs in a transaction of its own). A transaction of the tools' own transaction manager that holds
	 * no such connection (a JPA dialect that exposes none) is refused: the claim could not join it.
	 */
	private ConnectionHolder callersConnection(ToolDescriptor tool) {
		if (!TransactionSynchronizationManager.isActualTransactionActive()) {
			return null;
		}
		if (TransactionSynchronizationManager.getResource(this.ledger.dataSource()) instanceof ConnectionHolder holder) {
			return holder;
		}
		if (this.transactionManager instanceof ResourceTransactionManager resources
				&& TransactionSynchronizationManager.hasResource(resources.getResourceFactory())) {
			throw new IllegalStateException("Tool '" + tool.name() + "' is transactional and was called inside a"
					+ " transaction of " + this.transactionManager.getClass().getSimpleName() + " that holds no JDBC"
					+ " connection of the ledger's DataSource, so its claim could not join it. Nothing was executed."
					+ " Use a JPA dialect that exposes its connection (HibernateJpaDialect does), or call the tool"
					+ " outside that transaction");
		}
		return null;
	}

	/**
	 * A claim in the caller's transaction must see rows that other callers committed after that transaction
	 * began, or a loser neither wins nor finds the row it lost to: refuse, before anything runs, to join a
	 * transaction above READ COMMITTED. The level is the one the transaction declared, else the one of the
	 * connection it holds, whichever transaction manager began it (a JPA one included).
	 */
	private void checkCallersIsolation(ToolDescriptor tool, ConnectionHolder callers) {
		Integer declared = TransactionSynchronizationManager.getCurrentTransactionIsolationLevel();
		int isolation;
		try {
			isolation = (declared != null) ? declared : callers.getConnection().getTransactionIsolation();
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the isolation of the caller's transaction", ex);
		}
		if (isolation > Connection.TRANSACTION_READ_COMMITTED) {
			throw new IllegalStateException("Tool '" + tool.name() + "' is transactional and was called inside a"
					+ " transaction at " + isolationName(isolation) + ", so its claim could not see a concurrent"
					+ " caller's. Nothing was executed. Call it outside a transaction, or in one at READ COMMITTED"
					+ " (@Transactional(isolation = Isolation.READ_COMMITTED))");
		}
	}

	private static String isolationName(int isolation) {
		return switch (isolation) {
			case Connection.TRANSACTION_REPEATABLE_READ -> "REPEATABLE READ";
			case Connection.TRANSACTION_SERIALIZABLE -> "SERIALIZABLE";
			default -> "isolation level " + isolation;
		};
	}

	/** A transactional claim that lost a lock wait or a deadlock to identical callers. */
	static final class ClaimContended extends RuntimeException {

		private static final long serialVersionUID = 1L;

		ClaimContended(PessimisticLockingFailureException cause) {
			super(cause);
		}

		/** A lock wait that timed out, rather than a deadlock: the winner holds its row still. */
		boolean winnerStillRunning() {
			return DatabaseErrors.isLockWaitTimeout(getCause());
		}

	}

	/** Carries a checked exception through a transaction callback. */
	private static final class CheckedFailure extends RuntimeException {

		private static final long serialVersionUID = 1L;

		CheckedFailure(Throwable cause) {
			super(cause);
		}

	}

}
