package io.idempotency.advice;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import io.idempotency.Answer;
import io.idempotency.IdempotentCallListener;
import io.idempotency.MissingRunException;
import io.idempotency.MissingRunPolicy;
import io.idempotency.key.CanonicalCall;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.ResultCodec;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.idempotency.run.Run;
import io.idempotency.run.RunResolver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;

/**
 * The flow of one idempotent call, read top-down: find the run, derive the key, claim it, and act on the
 * claim: execute the call that won it ({@link Execution}), wait for a running one, or answer from the row it
 * lost to ({@link Repeats}). How the call ends is its {@link Ending}'s: returned on this thread, or completed as a
 * stage; the flow itself is the same. Its observation begins here, and ends here or, for a stage, when its ending
 * completes it; the transactional path is {@link TransactionalCalls}'.
 */
final class CallFlow {

	private final CallLedger ledger;

	private final RunResolver runs;

	private final MissingRunPolicy missingRunPolicy;

	private final long maxArgumentsBytes;

	private final CallReports reports;

	private final Repeats repeats;

	private final Outcomes outcomes;

	private final TransactionalCalls transactional;

	CallFlow(CallLedger ledger, ResultCodec results, RunResolver runs, FailureClassifier failures,
			MissingRunPolicy missingRunPolicy, long maxArgumentsBytes, PlatformTransactionManager transactionManager,
			List<IdempotentCallListener> listeners, ObservationRegistry observations,
			IdempotentCallObservationConvention convention) {
		this.ledger = ledger;
		this.runs = runs;
		this.missingRunPolicy = missingRunPolicy;
		this.maxArgumentsBytes = maxArgumentsBytes;
		this.reports = new CallReports(listeners, observations, convention);
		this.repeats = new Repeats(results, this.reports);
		this.outcomes = new Outcomes(results, failures, this.reports);
		this.transactional = new TransactionalCalls(ledger, transactionManager, this.reports);
	}

	/** The transactional path, which tells whether transactional tools can run here. */
	TransactionalCalls transactional() {
		return this.transactional;
	}

	/** One call whose body returns its result: its answer, on this thread. */
	@SuppressWarnings("try")
	Object call(ToolDescriptor tool, ToolCall call) throws Throwable {
		Observation observation = this.reports.observe(tool);
		try (Observation.Scope scope = (observation != null) ? observation.openScope() : null) {
			return flow(tool, call, Ending.RETURNING);
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
	 * One call whose body completes later (an asynchronous tool's): the same flow, on this thread up to the
	 * body's start; nothing waits for the body's stage, and its outcome is recorded on {@code recording} once it
	 * completes. A transactional call's body runs in the claim's transaction, on this thread, which waits for it.
	 * @return the call's stage: the body's result once its outcome is recorded, the stored result of a repeat,
	 * or the failure {@link #call} would throw
	 */
	@SuppressWarnings("try")
	CompletionStage<Object> callAsync(ToolDescriptor tool, ToolCall call, Executor recording) {
		Observation observation = this.reports.observe(tool);
		AsyncCall async = new AsyncCall(tool, recording, observation);
		Object answer;
		try (Observation.Scope scope = (observation != null) ? observation.openScope() : null) {
			answer = flow(tool, call, async);
		}
		catch (Throwable failure) {
			async.stop(failure);
			return CompletableFuture.failedFuture(failure);
		}
		return async.settle(answer);
	}

	/**
	 * The run, the key, whether a person must approve the call first, the claim; then the ending executes, waits
	 * or answers.
	 */
	private Object flow(ToolDescriptor tool, ToolCall call, Ending ending) throws Throwable {
		ClaimRequest request = request(tool, call);
		if (request == null) {
			return ending.unclaimed(call);
		}
		if (tool.transactional()) {
			Ending inTransaction = ending.inTransaction();
			return this.transactional.call(tool, request,
					(joined) -> decide(joined, tool, request, call, inTransaction));
		}
		return Repeats.given(decide(this.ledger, tool, request, call, ending));
	}

	/**
	 * What the call claims: its key in its run, and its arguments as stored; {@code null} for a call outside any
	 * run that the policy lets execute without deduplication (it refuses any other).
	 */
	private ClaimRequest request(ToolDescriptor tool, ToolCall call) throws Exception {
		Optional<Run> run = call.run(this.runs);
		if (run.isEmpty()) {
			allowWithoutRun(tool);
			return null;
		}
		CanonicalCall canonical;
		try {
			canonical = call.canonicalise(run.get().runId(), this.maxArgumentsBytes);
		}
		catch (InvalidArgumentsException ex) {
			this.reports.tell(tool, null, Answer.REFUSED_INVALID_ARGUMENTS);
			throw ex;
		}
		return new ClaimRequest(canonical.key(), run.get().runId(), run.get().userId(), tool.name(),
				canonical.arguments(), tool.sensitive(), approvalReason(tool, call, canonical));
	}

	/**
	 * Why the call needs a person's approval before it executes, or {@code null}: asked before the claim, so an
	 * approval method that throws fails the call with nothing claimed.
	 */
	private static String approvalReason(ToolDescriptor tool, ToolCall call, CanonicalCall canonical) throws Exception {
		if (!tool.approval().isNeeded()) {
			return null;
		}
		// An Approval refuses a reason longer than the ledger keeps when it is made.
		return tool.approval().reasonFor(call.target(), canonical);
	}

	/**
	 * A call outside any run: refused, or told it is executed without deduplication where the policy says so;
	 * always refused for a tool that needs a person's approval, which is given to a call of a run.
	 */
	private void allowWithoutRun(ToolDescriptor tool) {
		// An approval is given to a call of a run: a call outside one could never be approved, nor act without one.
		if (this.missingRunPolicy == MissingRunPolicy.REFUSE || tool.approval().isNeeded()) {
			IdempotentToolInterceptor.LOGGER.atWarn()
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
		IdempotentToolInterceptor.LOGGER.atWarn()
			.addKeyValue("idempotency.tool", tool.name())
			.addKeyValue("idempotency.outcome", Answer.EXECUTED_WITHOUT_RUN.kind())
			.log("Tool '{}' called outside a run: executing it without deduplication", tool.name());
	}

	/**
	 * Claims the key and acts on the claim: executes the call that won it, waits (within the tool's bound) for
	 * a running one, or answers from the row it lost to.
	 * @return the call's result, or the answer of a repeat: a value, or a {@link Repeats.Refusal}
	 */
	private Object decide(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, ToolCall call, Ending ending)
			throws Throwable {
		Claim claim = claim(ledger, tool, request);
		if (claim instanceof Claim.Won won) {
			return ending.executed(call, new Execution(this.outcomes, ledger, tool, request, won));
		}
		if (claim instanceof Claim.InProgress running && !tool.waitForRunning().isZero()) {
			return ending.awaited(ledger, running, tool.waitForRunning(),
					(settled) -> this.repeats.answer(tool, settled, request, ledger));
		}
		return this.repeats.answer(tool, claim, request, ledger);
	}

	private Claim claim(CallLedger ledger, ToolDescriptor tool, ClaimRequest request) {
		try {
			return ledger.claim(request);
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
	}

}
