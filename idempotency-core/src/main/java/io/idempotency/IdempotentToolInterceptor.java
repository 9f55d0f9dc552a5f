package io.idempotency;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.idempotency.key.CanonicalCall;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.LockConflicts;
import io.idempotency.run.Run;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The flow of one idempotent call: find the run, derive the key, claim it, then execute and record the
 * outcome (won) or answer from the existing row (lost). The tool's own exceptions reach the caller
 * unchanged.
 */
final class IdempotentToolInterceptor implements MethodInterceptor {

	private static final Log logger = LogFactory.getLog(IdempotentToolInterceptor.class);

	/** The name of the observation around each call, tagged with the tool and the outcome. */
	static final String OBSERVATION = "idempotency.tool.call";

	private final JdbcLedger ledger;

	private final ResultCodec results;

	private final RunResolver runs;

	private final FailureClassifier failures;

	private final MissingRunPolicy missingRunPolicy;

	private final long maxArgumentsBytes;

	private final ToolTransactions transactions;

	private final PlatformTransactionManager transactionManager;

	private final String transactionsProblem;

	/** How often a transactional call claims anew after a deadlock among identical callers. */
	private static final int CLAIM_ATTEMPTS = 3;

	private final Map<MethodClassKey, ToolDescriptor> tools = new ConcurrentHashMap<>();

	private final List<IdempotentCallListener> listeners;

	private final ObservationRegistry observations;

	IdempotentToolInterceptor(JdbcLedger ledger, ResultCodec results, RunResolver runs, FailureClassifier failures,
			MissingRunPolicy missingRunPolicy, long maxArgumentsBytes, PlatformTransactionManager transactionManager,
			List<IdempotentCallListener> listeners, ObservationRegistry observations) {
		this.listeners = List.copyOf(listeners);
		this.observations = (observations != null) ? observations : ObservationRegistry.NOOP;
		this.ledger = ledger;
		this.results = results;
		this.runs = runs;
		this.failures = failures;
		this.missingRunPolicy = missingRunPolicy;
		this.maxArgumentsBytes = maxArgumentsBytes;
		this.transactionManager = transactionManager;
		if (transactionManager != null && ledger.joinsTransactionsOf(transactionManager)) {
			this.transactions = new ToolTransactions(transactionManager);
			this.transactionsProblem = null;
		}
		else {
			this.transactions = null;
			this.transactionsProblem = (transactionManager == null)
					? "no single transaction manager of the ledger's DataSource was found (there is none, or there are"
							+ " several and none is primary)"
					: "its transaction manager (" + transactionManager.getClass().getSimpleName() + ") does not hold"
							+ " connections of the ledger's DataSource, so the claim and the tool's effect would commit"
							+ " separately";
		}
	}

	boolean supportsTransactionalTools() {
		return this.transactions != null;
	}

	/** Why transactional tools cannot run, in words that follow "is transactional, but"; {@code null} if they can. */
	String transactionalToolsProblem() {
		return this.transactionsProblem;
	}

	/** The tool of an invoked method, parsed on its first call and cached: the hot path only looks it up. */
	ToolDescriptor describe(Method method, Class<?> targetClass) {
		return this.tools.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			List<String> problems = new ArrayList<>();
			ToolDescriptor tool = ToolDescriptor.describe(specific, targetClass, problems);
			if (!problems.isEmpty()) {
				throw new IllegalStateException(String.join("\n", problems));
			}
			return tool;
		});
	}

	@Override
	@SuppressWarnings("try")
	public Object invoke(MethodInvocation invocation) throws Throwable {
		Class<?> targetClass = AopUtils.getTargetClass(invocation.getThis());
		ToolDescriptor tool = describe(invocation.getMethod(), targetClass);
		if (this.observations.isNoop()) {
			return call(tool, invocation);
		}
		Observation observation = Observation.createNotStarted(OBSERVATION, this.observations)
			.contextualName("idempotent " + tool.name())
			.lowCardinalityKeyValue("tool", tool.name())
			.start();
		try (Observation.Scope scope = observation.openScope()) {
			return call(tool, invocation);
		}
		catch (Throwable failure) {
			observation.error(failure);
			throw failure;
		}
		finally {
			observation.stop();
		}
	}

	private Object call(ToolDescriptor tool, MethodInvocation invocation) throws Throwable {
		Optional<Run> run = this.runs.resolve(invocation.getArguments());
		if (run.isEmpty()) {
			if (this.missingRunPolicy == MissingRunPolicy.REFUSE) {
				tell(tool, null, Answer.REFUSED_WITHOUT_RUN);
				throw new MissingRunException(tool.name());
			}
			tell(tool, null, Answer.EXECUTED_WITHOUT_RUN);
			logger.warn("Tool '" + tool.name() + "' called outside a run: executing it without deduplication");
			return invocation.proceed();
		}
		CanonicalCall call;
		try {
			call = IdempotencyKeys.canonicalise(tool.name(), tool.method(), invocation.getArguments(), run.get().runId(),
					this.maxArgumentsBytes);
		}
		catch (InvalidArgumentsException ex) {
			tell(tool, null, Answer.REFUSED_INVALID_ARGUMENTS);
			throw ex;
		}
		ClaimRequest request = new ClaimRequest(call.key(), run.get().runId(), run.get().userId(), tool.name(),
				call.arguments(), tool.sensitive());
		if (tool.transactional()) {
			return inOneTransaction(tool, request, run.get(), invocation);
		}
		return claimAndCall(this.ledger, tool, request, run.get(), invocation);
	}

	private Object claimAndCall(JdbcLedger ledger, ToolDescriptor tool, ClaimRequest request, Run run,
			MethodInvocation invocation) throws Throwable {
		Claim claim;
		try {
			claim = ledger.claim(request);
		}
		catch (PessimisticLockingFailureException ex) {
			if (!tool.transactional()) {
				// The ledger made the claim again, and it lost every time: nothing was claimed, nothing runs.
				throw ledgerUnavailable(tool, request, ex);
			}
			// Callers of a transactional tool wait on the winner's uncommitted row: contention, not failure.
			throw new ClaimContended(ex);
		}
		catch (DataAccessException | TransactionException ex) {
			throw ledgerUnavailable(tool, request, ex);
		}
		if (!(claim instanceof Claim.Won)) {
			return answer(tool, claim, request);
		}
		Object result;
		IdempotentInvocation outer = IdempotentInvocation.enter(new IdempotentInvocation(tool.name(), request.key(), run));
		try {
			result = invocation.proceed();
		}
		catch (Throwable failure) {
			LedgerStatus outcome = this.failures.classify(failure, tool);
			if (!tool.transactional()) {
				recordFailure(ledger, tool, request, failure, outcome);
			}
			tell(tool, request, (outcome == LedgerStatus.UNKNOWN && !tool.transactional()) ? Answer.UNKNOWN
					: Answer.FAILED);
			throw failure;
		}
		finally {
			IdempotentInvocation.exit(outer);
		}
		recordSuccess(ledger, tool, request, result);
		tell(tool, request, Answer.EXECUTED);
		return result;
	}

	private Object inOneTransaction(ToolDescriptor tool, ClaimRequest request, Run run, MethodInvocation invocation)
			throws Throwable {
		if (this.transactions == null) {
			throw new IllegalStateException("Tool '" + tool.name() + "' is transactional, but " + this.transactionsProblem
					+ ". Nothing was executed");
		}
		ConnectionHolder callers = callersConnection(tool);
		boolean joinsCallersTransaction = callers != null;
		if (joinsCallersTransaction) {
			checkCallersIsolation(tool, callers);
		}
		JdbcLedger joined = this.ledger.inCallersTransaction();
		for (int attempt = 1;; attempt++) {
			try {
				return this.transactions.execute((status) -> {
					try {
						return claimAndCall(joined, tool, request, run, invocation);
					}
					catch (RuntimeException | Error ex) {
						throw ex;
					}
					catch (Throwable ex) {
						throw new CheckedFailure(ex);
					}
				});
			}
			catch (CheckedFailure ex) {
				throw ex.getCause();
			}
			catch (CannotCreateTransactionException ex) {
				// No connection for the transaction: nothing was claimed, nothing ran.
				throw ledgerUnavailable(tool, request, ex);
			}
			catch (TransactionSystemException ex) {
				// A claim that failed on a lost connection, whose rollback then failed too: the claim's failure is
				// the answer (the server rolls back what a lost connection had not committed).
				if (ex.getApplicationException() instanceof LedgerUnavailableException unavailable) {
					unavailable.addSuppressed(ex);
					throw unavailable;
				}
				throw ex;
			}
			catch (ClaimContended ex) {
				// A deadlock among callers that waited on a winner which rolled back: the key may be free again,
				// and this transaction is gone, so claim anew. A lock wait that timed out means the winner is
				// still running: that is an answer.
				if (joinsCallersTransaction || ex.winnerStillRunning() || attempt >= CLAIM_ATTEMPTS) {
					// A repeat answered as in progress: a replay, counted as the ledger counts a lost claim.
					this.ledger.recordReplay(request.key());
					tell(tool, request, Answer.IN_PROGRESS);
					if (tool.envelope()) {
						return ToolResult.inProgress(null);
					}
					throw new ToolCallInProgressException(tool.name(), null);
				}
			}
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

	private LedgerUnavailableException ledgerUnavailable(ToolDescriptor tool, ClaimRequest request, Exception cause) {
		logger.warn("Tool '" + tool.name() + "' was not executed: its claim (key " + request.key() + ") could not be"
				+ " recorded: " + cause);
		tell(tool, request, Answer.REFUSED_LEDGER_UNAVAILABLE);
		return new LedgerUnavailableException(tool.name(), cause);
	}

	private void recordSuccess(JdbcLedger ledger, ToolDescriptor tool, ClaimRequest request, Object result) {
		Object data = (tool.envelope() && result instanceof ToolResult<?> envelope) ? envelope.data() : result;
		String json = null;
		String notStored = null;
		if (!tool.returnsNothing()) {
			ResultCodec.Storable storable = this.results.storable(data, ledger.redaction(), request.arguments(),
					request.sensitiveNames());
			json = storable.json();
			notStored = storable.notStored();
		}
		try {
			if (notStored != null) {
				// Never a stored null that a replay would pass off as the result: the row says it is missing.
				logger.warn("The result of tool '" + tool.name() + "' (key " + request.key() + ") is not stored: "
						+ notStored + ". A repeat is told the action was done, without its result");
				ledger.recordSucceededWithoutResult(request.key(), "The result is not stored: " + notStored);
			}
			else {
				ledger.recordSucceeded(request.key(), json);
			}
		}
		catch (RuntimeException ex) {
			if (tool.transactional()) {
				throw ex;
			}
			if (json != null && refusedAsTooLarge(ex) && recordedWithoutResult(ledger, tool, request, ex)) {
				return;
			}
			// The effect happened; the row stays attempting and the reconciler settles it.
			logger.error("Tool '" + tool.name() + "' succeeded, but its outcome could not be recorded (key "
					+ request.key() + "); the reconciler will settle it", ex);
		}
	}

	/** Client classes that refuse a statement larger than the server's {@code max_allowed_packet}. */
	private static final Set<String> PACKET_TOO_LARGE = Set.of("org.mariadb.jdbc.export.MaxAllowedPacketException",
			"com.mysql.cj.jdbc.exceptions.PacketTooBigException");

	/**
	 * Whether the database refused the data itself, so that writing it again can never succeed: a statement
	 * over MariaDB's or MySQL's {@code max_allowed_packet} (error 1153, or the driver's own check), a data
	 * exception (SQL state class 22) or a program limit (class 54, PostgreSQL's for a value too large). A lost
	 * connection or an unavailable database is not: the reconciler settles that row, with its result.
	 */
	static boolean refusedAsTooLarge(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (PACKET_TOO_LARGE.contains(cause.getClass().getName())) {
				return true;
			}
			if (cause instanceof SQLException sql) {
				String state = (sql.getSQLState() != null) ? sql.getSQLState() : "";
				if (sql.getErrorCode() == 1153 || state.startsWith("22") || state.startsWith("54")) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * A result the database refused to store (larger than it accepts, say): the call is recorded as done
	 * without its result, so that a repeat is told the action was done rather than left in progress.
	 */
	private boolean recordedWithoutResult(JdbcLedger ledger, ToolDescriptor tool, ClaimRequest request,
			RuntimeException refused) {
		try {
			String reason = ledger.redaction().scrub("The result is not stored: the database refused it: "
					+ refused.getMessage(), request.arguments(), request.sensitiveNames());
			if (!ledger.recordSucceededWithoutResult(request.key(), reason)) {
				return false;
			}
			logger.warn("The result of tool '" + tool.name() + "' (key " + request.key() + ") could not be stored, so"
					+ " the call is recorded as done without it: " + refused.getClass().getName());
			return true;
		}
		catch (RuntimeException ex) {
			refused.addSuppressed(ex);
			return false;
		}
	}

	private void recordFailure(JdbcLedger ledger, ToolDescriptor tool, ClaimRequest request, Throwable failure,
			LedgerStatus outcome) {
		// An exception's message may quote an argument, a secret among them (a URL with its API key).
		String error = ledger.redaction().scrub(failure.getClass().getName() + ": " + failure.getMessage(),
				request.arguments(), request.sensitiveNames());
		try {
			if (outcome == LedgerStatus.UNKNOWN) {
				ledger.recordUnknown(request.key(), error);
			}
			else {
				ledger.recordFailed(request.key(), error);
			}
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			logger.error("Tool '" + tool.name() + "' failed, and its outcome could not be recorded (key "
					+ request.key() + "); the reconciler will settle it", ex);
		}
	}

	private Object answer(ToolDescriptor tool, Claim claim, ClaimRequest request) {
		if (claim instanceof Claim.Replay replay) {
			return replay(tool, replay, request);
		}
		if (claim instanceof Claim.PreviousAttemptFailed failed) {
			tell(tool, request, Answer.PREVIOUS_ATTEMPT_FAILED);
			if (tool.envelope()) {
				return ToolResult.previousAttemptFailed(failed.error());
			}
			throw new PreviousAttemptFailedException(tool.name(), failed.error());
		}
		if (claim instanceof Claim.InProgress inProgress) {
			tell(tool, request, Answer.IN_PROGRESS);
			if (tool.envelope()) {
				return ToolResult.inProgress(inProgress.since());
			}
			throw new ToolCallInProgressException(tool.name(), inProgress.since());
		}
		tell(tool, request, Answer.REFUSED_CONFLICT);
		throw new IdempotencyConflictException(tool.name());
	}

	private Object replay(ToolDescriptor tool, Claim.Replay replay, ClaimRequest request) {
		if (replay.result() == null && !tool.returnsNothing()) {
			return withoutResult(tool, request, null);
		}
		Object data;
		try {
			data = this.results.read(replay.result(), tool.dataType());
		}
		catch (ResultCodec.UnreadableResultException ex) {
			// The result type changed since the row was written: done, not done again, and never a guess.
			logger.warn("The stored result of tool '" + tool.name() + "' (key " + request.key() + ") cannot be read"
					+ " back: " + ex.getMessage() + ". A repeat is told the action was done, without its result");
			return withoutResult(tool, request, ex);
		}
		tell(tool, request, Answer.REPLAYED);
		return tool.envelope() ? ToolResult.replayed(data) : data;
	}

	/** A repeat of a call that succeeded, whose result there is none of to show: done, not done again. */
	private Object withoutResult(ToolDescriptor tool, ClaimRequest request, Exception cause) {
		tell(tool, request, Answer.REPLAYED_WITHOUT_RESULT);
		if (tool.envelope()) {
			return ToolResult.replayedWithoutResult();
		}
		ResultNotStoredException notStored = new ResultNotStoredException(tool.name());
		if (cause != null) {
			notStored.initCause(cause);
		}
		throw notStored;
	}

	private void tell(ToolDescriptor tool, ClaimRequest request, Answer answer) {
		Observation observation = this.observations.getCurrentObservation();
		if (observation != null && OBSERVATION.equals(observation.getContext().getName())) {
			observation.lowCardinalityKeyValue("outcome", answer.tag());
		}
		if (this.listeners.isEmpty() && !IdempotentCallScope.isOpen()) {
			return;
		}
		IdempotentCall call = new IdempotentCall(tool.name(), tool.toolCallName(),
				(request != null) ? request.key() : null, answer, tool.envelope());
		IdempotentCallScope.tell(call);
		for (IdempotentCallListener listener : this.listeners) {
			try {
				listener.onCall(call);
			}
			catch (RuntimeException ex) {
				logger.warn("Idempotent call listener " + listener + " failed", ex);
			}
		}
	}

	/** A transactional claim that lost a lock wait or a deadlock to identical callers. */
	private static final class ClaimContended extends RuntimeException {

		private static final long serialVersionUID = 1L;

		ClaimContended(PessimisticLockingFailureException cause) {
			super(cause);
		}

		/** A lock wait that timed out, rather than a deadlock: the winner holds its row still. */
		boolean winnerStillRunning() {
			return LockConflicts.isLockWaitTimeout(getCause());
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
