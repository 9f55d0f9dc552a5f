package io.idempotency.advice;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Function;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.micrometer.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ending of a call whose body completes later, as an asynchronous tool's does: no thread waits for the
 * body's stage (nor for a running call, where a repeat waits for its outcome). Once it completes, the outcome is
 * recorded on the executor given (one whose threads may block, as the ledger's JDBC does), inside the call's
 * observation, which then stops; and the call's own stage completes, with the body's result or failure.
 * Cancelling that stage stops neither the body nor the recording.
 */
final class AsyncCall implements Ending {

	private static final Logger logger = LoggerFactory.getLogger(AsyncCall.class);

	private final ToolDescriptor tool;

	private final Executor recording;

	private final Observation observation;

	/** Whether the body's stage is waited for on this thread: inside the claim's transaction, which is its. */
	private final boolean joining;

	/**
	 * @param recording where the outcome is recorded
	 * @param observation the call's observation, or {@code null} where observations are off
	 */
	AsyncCall(ToolDescriptor tool, Executor recording, Observation observation) {
		this(tool, recording, observation, false);
	}

	private AsyncCall(ToolDescriptor tool, Executor recording, Observation observation, boolean joining) {
		this.tool = tool;
		this.recording = recording;
		this.observation = observation;
		this.joining = joining;
	}

	/** What follows a stage's completion, on the executor: the call's answer, from its value or failure. */
	@FunctionalInterface
	interface Then {

		Object answer(Object value, Throwable failure) throws Throwable;

	}

	/**
	 * Work started for the call that ends later (its body; a repeat's wait for its running call): its stage,
	 * and what follows it, or {@code null} where the stage's own outcome is the call's (a body executed
	 * without a claim, which has nothing to record).
	 */
	record Started(CompletionStage<?> stage, Then then) {

	}

	@Override
	public Object unclaimed(ToolCall call) throws Throwable {
		return new Started(Execution.stageOf(call.proceed(), this.tool), null);
	}

	@Override
	public Object executed(ToolCall call, Execution execution) throws Throwable {
		if (this.joining) {
			return execution.joined(call);
		}
		return new Started(execution.started(call), execution::completed);
	}

	/**
	 * A repeat of an asynchronous call waits for the running call's outcome holding no thread (inside a
	 * transaction too: it is answered once that has ended). A wait that fails leaves the call in progress.
	 */
	@Override
	public Object awaited(CallLedger ledger, Claim.InProgress running, Duration bound,
			Function<Claim, Object> answer) {
		return new Started(RunningCallWait.awaitOutcome(ledger, running, bound, this.recording),
				(settled, failure) -> Repeats.given(answer.apply((failure != null) ? running : (Claim) settled)));
	}

	/** Inside the claim's transaction, which is this thread's, the body's writes belong in it: waited for here. */
	@Override
	public Ending inTransaction() {
		return new AsyncCall(this.tool, this.recording, this.observation, true);
	}

	/**
	 * The call's stage, from the flow's answer: once the work started has completed and what follows it is done
	 * (the body's outcome recorded), with the call's answer or failure; at once for an answer given already.
	 */
	CompletableFuture<Object> settle(Object answer) {
		if (!(answer instanceof Started started)) {
			stop(null);
			return CompletableFuture.completedFuture(answer);
		}
		CompletableFuture<Object> outcome = new CompletableFuture<>();
		started.stage().whenComplete((value, failure) -> {
			Throwable cause = (failure != null) ? unwrap(failure) : null;
			if (started.then() == null) {
				end(outcome, value, cause);
				return;
			}
			try {
				this.recording.execute(() -> follow(started.then(), value, cause, outcome));
			}
			catch (RuntimeException ex) {
				// No thread of the executor (it is shut down): here rather than never, which would leave it open.
				logger.warn("The executor of an asynchronous call refused its outcome; it is recorded on this thread", ex);
				follow(started.then(), value, cause, outcome);
			}
		});
		return outcome;
	}

	@SuppressWarnings("try")
	private void follow(Then then, Object value, Throwable failure, CompletableFuture<Object> outcome) {
		Object answer = null;
		Throwable thrown = null;
		try (Observation.Scope scope = (this.observation != null) ? this.observation.openScope() : null) {
			answer = then.answer(value, failure);
		}
		catch (Throwable ex) {
			thrown = ex;
		}
		end(outcome, answer, thrown);
	}

	private void end(CompletableFuture<Object> outcome, Object value, Throwable failure) {
		stop(failure);
		if (failure != null) {
			outcome.completeExceptionally(failure);
		}
		else {
			outcome.complete(value);
		}
	}

	/** Ends the call's observation, with its failure if it failed. */
	void stop(Throwable failure) {
		if (this.observation == null) {
			return;
		}
		if (failure != null) {
			this.observation.error(failure);
		}
		this.observation.stop();
	}

	/** The failure itself, out of the wrappers a stage puts around it. */
	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
