package io.idempotency.advice;

import java.time.Duration;
import java.util.function.Function;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;

/**
 * How a call ends, once the {@link CallFlow} has decided what it does: {@link #RETURNING} on the calling thread,
 * for a body that returns its result; {@link AsyncCall} as a stage that completes later, for a body that returns
 * one. Each way of ending is the same three steps, each ended its own way.
 */
interface Ending {

	/** Ends a call by returning its answer on the calling thread, which waits for whatever the call waits for. */
	Ending RETURNING = new Ending() {

		@Override
		public Object unclaimed(ToolCall call) throws Throwable {
			return call.proceed();
		}

		@Override
		public Object executed(ToolCall call, Execution execution) throws Throwable {
			return execution.returned(call);
		}

		@Override
		public Object awaited(CallLedger ledger, Claim.InProgress running, Duration bound,
				Function<Claim, Object> answer) {
			return answer.apply(RunningCallWait.awaitOutcome(ledger, running, bound));
		}

	};

	/** Runs the body of a call made outside any run, where the policy allows it: nothing is claimed or recorded. */
	Object unclaimed(ToolCall call) throws Throwable;

	/** Runs the body of the call that won its claim, and has its outcome recorded. */
	Object executed(ToolCall call, Execution execution) throws Throwable;

	/** Waits, within the bound, for the outcome of the running call a repeat found, and answers from it. */
	Object awaited(CallLedger ledger, Claim.InProgress running, Duration bound, Function<Claim, Object> answer);

	/**
	 * This ending inside a transactional call's transaction, which is the calling thread's: what the call writes
	 * belongs in it, so the body is waited for on this thread.
	 */
	default Ending inTransaction() {
		return this;
	}

}
