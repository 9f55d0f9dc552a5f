package io.idempotency.advice;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.idempotency.IdempotentInvocation;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.run.Run;

/**
 * The execution of the one call that won its claim: its body runs as the thread's {@link IdempotentInvocation},
 * and its outcome is recorded on the row the claim inserted, then told ({@link Outcomes}). A failure of the body
 * is thrown as the body's own, once recorded (a transactional tool's rolls its transaction back instead).
 */
record Execution(Outcomes outcomes, CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Claim.Won claim) {

	/** Runs a body that returns its result, and records it. */
	Object returned(ToolCall call) throws Throwable {
		Object result = run(call, Body.RETURNS_RESULT);
		this.outcomes.succeeded(this, result);
		return result;
	}

	/** Starts a body that returns a stage: its outcome is recorded once the stage completes ({@link #completed}). */
	CompletionStage<?> started(ToolCall call) throws Throwable {
		return (CompletionStage<?>) run(call, Body.RETURNS_STAGE);
	}

	/** Runs a body that returns a stage and waits for it on this thread, whose transaction its writes are in. */
	Object joined(ToolCall call) throws Throwable {
		Object result = run(call, Body.RETURNS_STAGE_JOINED);
		this.outcomes.succeeded(this, result);
		return result;
	}

	/**
	 * Records and tells the outcome of a body whose stage completed: its value, or its failure, thrown. A stage
	 * that was cancelled says nothing of the work behind it, which may have taken effect: unknown.
	 */
	Object completed(Object value, Throwable failure) throws Throwable {
		if (failure != null) {
			throw this.outcomes.failed(this, failure);
		}
		this.outcomes.succeeded(this, value);
		return value;
	}

	/** What a body returns, and what the call makes of it. */
	private enum Body {

		/** Its result. */
		RETURNS_RESULT,

		/** Its stage, checked to be one. */
		RETURNS_STAGE,

		/** Its stage, waited for: the result is the stage's. */
		RETURNS_STAGE_JOINED

	}

	/** Runs the body as the thread's invocation: what it returned, made what {@code body} says. */
	private Object run(ToolCall call, Body body) throws Throwable {
		IdempotentInvocation outer = IdempotentInvocation.enter(new IdempotentInvocation(this.tool.name(),
				this.request.key(), new Run(this.request.runId(), this.request.userId())));
		try {
			Object returned = call.proceed();
			return switch (body) {
				case RETURNS_RESULT -> returned;
				case RETURNS_STAGE -> stageOf(returned, this.tool);
				case RETURNS_STAGE_JOINED -> join(stageOf(returned, this.tool));
			};
		}
		catch (Throwable failure) {
			throw this.outcomes.failed(this, failure);
		}
		finally {
			IdempotentInvocation.exit(outer);
		}
	}

	/** The stage a body called asynchronously must return. */
	static CompletionStage<?> stageOf(Object returned, ToolDescriptor tool) {
		if (returned instanceof CompletionStage<?> stage) {
			return stage;
		}
		throw new IllegalStateException("The body of function '" + tool.name() + "', called asynchronously,"
				+ " returned " + ((returned != null) ? "a " + returned.getClass().getName() : "null")
				+ " instead of its CompletionStage");
	}

	/** Waits on this thread for a body's stage; its failure is thrown as the body's own. */
	private static Object join(CompletionStage<?> body) throws Throwable {
		try {
			return body.toCompletableFuture().join();
		}
		catch (CompletionException ex) {
			throw AsyncCall.unwrap(ex);
		}
	}

}
