package io.idempotency.advice;

import io.idempotency.ledger.ResultCodec;
import io.idempotency.MissingRunPolicy;
import io.idempotency.IdempotentInvocation;
import io.idempotency.Answer;
import io.idempotency.IdempotentCallListener;
import io.idempotency.MissingRunException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import io.idempotency.key.CanonicalCall;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.DatabaseErrors;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.run.Run;
import io.idempotency.run.RunResolver;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;

/**
 * The flow of one idempotent call: find the run, derive the key, claim it, then execute and record the
 * outcome (won) or answer from the existing row (lost). The tool's own exceptions reach the caller
 * unchanged. Answering a repeat ({@link Repeats}), recording an outcome ({@link Outcomes}), the transactional
 * path ({@link TransactionalCalls}) and telling each call's answer ({@link CallReports}) are classes of their
 * own.
 */
final class IdempotentToolInterceptor implements MethodInterceptor {

	private static final Logger logger = LoggerFactory.getLogger(IdempotentToolInterceptor.class);

	private final CallLedger ledger;

	private final RunResolver runs;

	private final FailureClassifier failures;

	private final MissingRunPolicy missingRunPolicy;

	private final long maxArgumentsBytes;

	private final CallReports reports;

	private final Repeats repeats;

	private final Outcomes outcomes;

	private final TransactionalCalls transactional;

	private final Map<MethodClassKey, ToolDescriptor> tools = new ConcurrentHashMap<>();

	IdempotentToolInterceptor(CallLedger ledger, ResultCodec results, RunResolver runs, FailureClassifier failures,
			MissingRunPolicy missingRunPolicy, long maxArgumentsBytes, PlatformTransactionManager transactionManager,
			List<IdempotentCallListener> listeners, ObservationRegistry observations,
			IdempotentCallObservationConvention convention) {
		this.ledger = ledger;
		this.runs = runs;
		this.failures = failures;
		this.missingRunPolicy = missingRunPolicy;
		this.maxArgumentsBytes = maxArgumentsBytes;
		this.reports = new CallReports(listeners, observations, convention);
		this.repeats = new Repeats(results, this.reports);
		this.outcomes = new Outcomes(results);
		this.transactional = new TransactionalCalls(ledger, transactionManager, this.reports);
	}

	boolean supportsTransactionalTools() {
		return this.transactional.supported();
	}

	/** Why transactional tools cannot run, in words that follow "is transactional, but"; {@code null} if they can. */
	String transactionalToolsProblem() {
		return this.transactional.problem();
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
	public Object invoke(MethodInvocation invocation) throws Throwable {
		ToolDescriptor tool = describe(invocation.getMethod(), AopUtils.getTargetClass(invocation.getThis()));
		return call(tool, new ToolCall() {

			@Override
			public Optional<Run> run(RunResolver runs) {
				return runs.resolve(invocation.getArguments());
			}

			@Override
			public CanonicalCall canonicalise(String runId, long maxArgumentsBytes) {
				return IdempotencyKeys.canonicalise(tool.name(), tool.method(), invocation.getArguments(), runId,
						maxArgumentsBytes, tool.keyArguments());
			}

			@Override
			public Object proceed() throws Throwable {
				return invocation.proceed();
			}

		});
	}

	/** One call of a tool, however it is made: the advice's flow, observed where observations are on. */
	@SuppressWarnings("try")
	Object call(ToolDescriptor tool, ToolCall call) throws Throwable {
		Observation observation = this.reports.observe(tool);
		try (Observation.Scope scope = (observation != null) ? observation.openScope() : null) {
			return claimed(tool, call, null);
		}
		catch (Throwable failure) {
			if (observation != null) {
				observation.error(failure);
			}
			throw failure;
		}
		finally {
			if (observation != null) {
				observation.stop();
			}
		}
	}

	/**
	 * One call whose body completes later (an asynchronous tool's): its run found, its key derived and claimed
	 * on this thread, and a repeat answered from its row, as {@link #call} does; the body is started here, and
	 * nothing waits for its stage: its outcome is recorded with {@code recording} once it completes. A
	 * transactional call's body runs in the claim's transaction, on this thread, which waits for its stage.
	 * @return the call's stage: the body's result once its outcome is recorded, the stored result of a repeat,
	 * or the failure {@link #call} would throw
	 */
	@SuppressWarnings("try")
	CompletionStage<Object> callAsync(ToolDescriptor tool, ToolCall call, Executor recording) {
		Observation observation = this.reports.observe(tool);
		AsyncCall async = new AsyncCall(recording, observation);
		Object answer;
		try (Observation.Scope scope = (observation != null) ? observation.openScope() : null) {
			answer = claimed(tool, call, async);
		}
		catch (Throwable failure) {
			async.stop(failure);
			return CompletableFuture.failedFuture(failure);
		}
		if (answer instanceof AsyncCall.Started started) {
			return async.settle(started);
		}
		async.stop(null);
		return CompletableFuture.completedFuture(answer);
	}

	/** The flow of a call; {@code async} is {@code null} for a call whose body returns its result. */
	private Object claimed(ToolDescriptor tool, ToolCall invocation, AsyncCall async) throws Throwable {
		Optional<Run> run = invocation.run(this.runs);
		if (run.isEmpty()) {
			if (this.missingRunPolicy == MissingRunPolicy.REFUSE) {
				logger.atWarn()
					.addKeyValue("idempotency.tool", tool.name())
					.addKeyValue("idempotency.outcome", Answer.REFUSED_WITHOUT_RUN.kind())
					.log("Tool '{}' was called outside a run, so it was not executed: no runId in its ToolContext or an"
							+ " MCP call's _meta, no run bound with RunContext, and no RunSource knew one. Bind the run"
							+ " around the agent's work (RunContext.supply(new Run(runId, userId), ...)), pass runId in"
							+ " the ToolContext, or have the MCP client send it in _meta", tool.name());
				this.reports.tell(tool, null, Answer.REFUSED_WITHOUT_RUN);
				throw new MissingRunException(tool.name());
			}
			this.reports.tell(tool, null, Answer.EXECUTED_WITHOUT_RUN);
			logger.atWarn()
				.addKeyValue("idempotency.tool", tool.name())
				.addKeyValue("idempotency.outcome", Answer.EXECUTED_WITHOUT_RUN.kind())
				.log("Tool '{}' called outside a run: executing it without deduplication", tool.name());
			Object result = invocation.proceed();
			return (async != null) ? new AsyncCall.Started(AsyncCall.stageOf(result, tool), null) : result;
		}
		CanonicalCall call;
		try {
			call = invocation.canonicalise(run.get().runId(), this.maxArgumentsBytes);
		}
		catch (InvalidArgumentsException ex) {
			this.reports.tell(tool, null, Answer.REFUSED_INVALID_ARGUMENTS);
			throw ex;
		}
		ClaimRequest request = new ClaimRequest(call.key(), run.get().runId(), run.get().userId(), tool.name(),
				call.arguments(), tool.sensitive());
		if (tool.transactional()) {
			return this.transactional.call(tool, request,
					(joined) -> claimAndCall(joined, tool, request, run.get(), invocation, async));
		}
		return Repeats.given(claimAndCall(this.ledger, tool, request, run.get(), invocation, async));
	}

	/** The call's result, or the answer of a call that lost its claim: a value, or a {@link Repeats.Refusal}. */
	private Object claimAndCall(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Run run,
			ToolCall invocation, AsyncCall async) throws Throwable {
		Claim claim = claim(ledger, tool, request);
		if (claim instanceof Claim.InProgress running && !tool.waitForRunning().isZero()) {
			if (async != null) {
				// A repeat of an asynchronous call waits for the running call's outcome holding no thread.
				return new AsyncCall.Started(
						RunningCallWait.awaitOutcome(ledger, running, tool.waitForRunning(), async.executor()),
						(settled, failure) -> Repeats.given(this.repeats.answer(tool, (Claim) settled, request, ledger)));
			}
			claim = RunningCallWait.awaitOutcome(ledger, running, tool.waitForRunning());
		}
		if (!(claim instanceof Claim.Won won)) {
			return this.repeats.answer(tool, claim, request, ledger);
		}
		Object result;
		IdempotentInvocation outer = IdempotentInvocation.enter(new IdempotentInvocation(tool.name(), request.key(), run));
		try {
			result = invocation.proceed();
			if (async != null) {
				CompletionStage<?> body = AsyncCall.stageOf(result, tool);
				if (!tool.transactional()) {
					return new AsyncCall.Started(body, (value, failure) -> {
						recordOutcome(ledger, tool, request, won, value, failure);
						if (failure != null) {
							throw failure;
						}
						return value;
					});
				}
				// Its writes belong in the claim's transaction, which is this thread's: it waits for them here.
				result = AsyncCall.join(body);
			}
		}
		catch (Throwable failure) {
			throw failed(ledger, tool, request, won, failure, this.failures.classify(failure, tool));
		}
		finally {
			IdempotentInvocation.exit(outer);
		}
		succeeded(ledger, tool, request, won, result);
		return result;
	}

	private Claim claim(CallLedger ledger, ToolDescriptor tool, ClaimRequest request) {
		Claim claim;
		try {
			claim = ledger.claim(request);
		}
		catch (PessimisticLockingFailureException ex) {
			if (!tool.transactional()) {
				// The ledger made the claim again, and it lost every time: nothing was claimed, nothing runs.
				throw this.reports.ledgerUnavailable(tool, request, ex);
			}
			// Callers of a transactional tool wait on the winner's uncommitted row: contention, not failure (a
			// serialization failure too: TransactionalCalls claims anew, a few times, then answers in progress).
			throw new TransactionalCalls.ClaimContended(ex);
		}
		catch (DataAccessException | TransactionException ex) {
			throw this.reports.ledgerUnavailable(tool, request, ex);
		}
		return claim;
	}

	/** Records the outcome of an asynchronous call's body, once its stage completed. */
	private void recordOutcome(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Claim.Won claim,
			Object result, Throwable failure) {
		if (failure == null) {
			succeeded(ledger, tool, request, claim, result);
			return;
		}
		// A stage that was cancelled says nothing of the work behind it, which may have taken effect.
		LedgerStatus outcome = (failure instanceof CancellationException) ? LedgerStatus.UNKNOWN
				: this.failures.classify(failure, tool);
		failed(ledger, tool, request, claim, failure, outcome);
	}

	private void succeeded(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Claim.Won claim,
			Object result) {
		this.outcomes.recordSuccess(ledger, tool, request, claim, result);
		this.reports.tell(tool, request, Answer.EXECUTED);
	}

	/** Records the failure of a call that won its claim, and tells it; the failure, to throw. */
	private Throwable failed(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Claim.Won claim,
			Throwable failure, LedgerStatus outcome) {
		if (tool.transactional() && DatabaseErrors.isSerializationFailure(failure)) {
			// Nothing of the call is committed, and TransactionalCalls runs its transaction again.
			return failure;
		}
		if (!tool.transactional()) {
			this.outcomes.recordFailure(ledger, tool, request, claim, failure, outcome);
			if (outcome == LedgerStatus.UNKNOWN) {
				// Only the exception's class: its message may quote an argument, a secret among them.
				logger.atWarn()
					.addKeyValue("idempotency.tool", tool.name())
					.addKeyValue("idempotency.key", request.key().value())
					.addKeyValue("idempotency.run", request.runId())
					.addKeyValue("idempotency.outcome", Answer.UNKNOWN.kind())
					.addKeyValue("idempotency.error", failure.getClass().getName())
					.log("Tool '{}' ended with {}, after which its effect may have happened: its outcome is unknown"
							+ " (key {}), and the reconciler will settle it", tool.name(), failure.getClass().getName(),
							request.key());
			}
		}
		this.reports.tell(tool, request,
				(outcome == LedgerStatus.UNKNOWN && !tool.transactional()) ? Answer.UNKNOWN : Answer.FAILED);
		return failure;
	}

}
