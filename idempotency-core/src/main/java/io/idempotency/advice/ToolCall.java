package io.idempotency.advice;

import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.idempotency.IdempotentFunction;
import io.idempotency.key.CanonicalCall;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.run.Run;
import io.idempotency.run.RunResolver;
import org.aopalliance.intercept.MethodInvocation;

/** One call of a tool, as the advice needs it, whether a bean method was invoked or a function was called. */
interface ToolCall {

	/** The call's run, found by the resolver from what the call carries. */
	Optional<Run> run(RunResolver runs);

	/** The call's key and stored arguments in this run. */
	CanonicalCall canonicalise(String runId, long maxArgumentsBytes);

	/** Runs the tool's body; its exceptions are the tool's own. */
	Object proceed() throws Throwable;

	/** The bean the tool's method is invoked on, which its approval method is asked on; {@code null} for a function. */
	Object target();

	/** The call of an annotated tool method, as the advice intercepted it. */
	record Invoked(ToolDescriptor tool, MethodInvocation invocation) implements ToolCall {

		@Override
		public Optional<Run> run(RunResolver runs) {
			return runs.resolve(this.invocation.getArguments());
		}

		@Override
		public CanonicalCall canonicalise(String runId, long maxArgumentsBytes) {
			return IdempotencyKeys.canonicalise(this.tool.name(), this.tool.method(), this.invocation.getArguments(),
					runId, maxArgumentsBytes, this.tool.keyArguments());
		}

		@Override
		public Object proceed() throws Throwable {
			return this.invocation.proceed();
		}

		@Override
		public Object target() {
			return this.invocation.getThis();
		}

	}

	/**
	 * The call of an idempotent function, with its arguments as a map, or as JSON ({@code json}), and the tool
	 * context it was called with, if any: its run is found there, else where the resolver looks for a call that
	 * carries none.
	 */
	record Called(IdempotentFunction<?> function, Object arguments, boolean json, Map<String, ?> toolContext,
			Supplier<?> body) implements ToolCall {

		@Override
		public Optional<Run> run(RunResolver runs) {
			return (this.toolContext != null) ? runs.resolve(this.toolContext) : runs.resolve(new Object[0]);
		}

		@Override
		@SuppressWarnings("unchecked")
		public CanonicalCall canonicalise(String runId, long maxArgumentsBytes) {
			return this.json
					? IdempotencyKeys.canonicalise(this.function.name(), (String) this.arguments, runId, maxArgumentsBytes,
							this.function.keyArguments())
					: IdempotencyKeys.canonicalise(this.function.name(), (Map<String, ?>) this.arguments, runId,
							maxArgumentsBytes, this.function.keyArguments());
		}

		@Override
		public Object proceed() {
			return this.body.get();
		}

		@Override
		public Object target() {
			return null;
		}

	}

}
