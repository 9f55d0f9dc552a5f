package io.idempotency.advice;

import java.util.Optional;

import io.idempotency.key.CanonicalCall;
import io.idempotency.run.Run;
import io.idempotency.run.RunResolver;

/** One call of a tool, as the advice needs it, whether a bean method was invoked or a function was called. */
interface ToolCall {

	/** The call's run, found by the resolver from what the call carries. */
	Optional<Run> run(RunResolver runs);

	/** The call's key and stored arguments in this run. */
	CanonicalCall canonicalise(String runId, long maxArgumentsBytes);

	/** Runs the tool's body; its exceptions are the tool's own. */
	Object proceed() throws Throwable;

}
