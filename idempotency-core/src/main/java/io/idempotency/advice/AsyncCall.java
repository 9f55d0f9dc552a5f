package io.idempotency.advice;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

import io.micrometer.observation.Observation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call whose body completes later, as an asynchronous tool's does: no thread waits for the body's stage
 * (nor for a running call, where a repeat waits for its outcome). Once it completes, the outcome is recorded
 * on the executor given (one whose threads may block, as the ledger's JDBC does), inside the call's
 * observation, which then stops; and the call's own stage completes, with the body's result or failure.
 * Cancelling that stage stops neither the body nor the recording.
 */
final class AsyncCall {

	private static final Logger logger = LoggerFactory.getLogger(AsyncCall.class);

	private final Executor recording;

	private final Observation observation;

	/**
	 * @param recording where the outcome is recorded
	 * @param observation the call's observation, or {@code null} where observations are off
	 */
	AsyncCall(Executor recording, Observation observation) {
		this.recording = recording;
		this.observation = observation;
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

	Executor executor() {
		return this.recording;
	}

	/** The body's stage, which the body must return. */
	static CompletionStage<?> stageOf(Object proceeded, ToolDescriptor tool) {
		if (proceeded instanceof CompletionStage<?> stage) {
			return stage;
		}
		throw new IllegalStateException("The body of function '" + tool.name() + "', called asynchronously, returned "
				+ ((proceeded != null) ? "a " + proceeded.getClass().getName() : "null") + " instead of its CompletionStage");
	}

	/**
	 * Waits on this thread for the body's stage: a transactional call's, whose writes belong in the claim's
	 * transaction. Its failure is thrown as the body's own.
	 */
	static Object join(CompletionStage<?> body) throws Throwable {
		try {
			return body.toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			throw unwrap(ex);
		}
	}

	/**
	 * The call's stage: completes once the work's has and what follows it is done (the body's outcome recorded),
	 * with the call's answer or failure.
	 */
	CompletableFuture<Object> settle(Started started) {
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
