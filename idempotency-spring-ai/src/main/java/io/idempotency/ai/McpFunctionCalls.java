package io.idempotency.ai;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.idempotency.AnsweredCall;
import io.idempotency.IdempotentCallScope;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * An MCP tool written by hand, called as an idempotent function: keyed by its name, the run and the
 * request's arguments. An error result is the tool's failure: recorded failed, so that a repeat is told the
 * previous attempt failed rather than that it was done. {@link IdempotentMcpTools} binds the run and tells
 * the answer.
 */
final class McpFunctionCalls {

	private final IdempotentFunction<CallToolResult> function;

	private final IdempotentCalls calls;

	McpFunctionCalls(McpSchema.Tool tool, IdempotentFunction<CallToolResult> function, IdempotentCalls calls) {
		this.function = Objects.requireNonNull(function, "function");
		this.calls = Objects.requireNonNull(calls, "calls");
		if (!tool.name().equals(function.name())) {
			throw new IllegalArgumentException("Function '" + function.name() + "' cannot be the idempotency of MCP tool '"
					+ tool.name() + "': clients call the tool by its name, and its calls are told their answers by it."
					+ " Name the function '" + tool.name() + "'");
		}
		if (!CallToolResult.class.equals(function.resultType().resolve())) {
			throw new IllegalArgumentException("Function '" + function.name() + "' returns " + function.resultType()
					+ ", but an MCP tool returns a CallToolResult: define it with CallToolResult.class");
		}
		calls.register(function);
	}

	CallToolResult call(CallToolRequest request, Supplier<CallToolResult> handler) {
		Map<String, Object> arguments = (request.arguments() != null) ? request.arguments() : Map.of();
		try (IdempotentCallScope scope = IdempotentCallScope.open()) {
			try {
				return this.calls.call(this.function, arguments, () -> {
					CallToolResult result = handler.get();
					if (result != null && Boolean.TRUE.equals(result.isError())) {
						throw new ErrorResult(result);
					}
					return result;
				});
			}
			catch (ErrorResult ex) {
				return ex.result;
			}
			catch (RuntimeException ex) {
				// The library's answer to this call, as an error result (IdempotentMcpTools tells its kind); not
				// that of a call the handler made inside, which failed this call as the tool's own failure.
				boolean own = scope.last()
					.filter((told) -> told.isCallOf(this.function.name()) && told.notExecuted())
					.isPresent();
				if (own && ex instanceof AnsweredCall) {
					return CallToolResult.builder()
						.content(List.of(McpSchema.TextContent.builder(ex.getMessage()).build()))
						.isError(true)
						.build();
				}
				throw ex;
			}
		}
	}

	/**
	 * Calls an asynchronous handler: the claim is made when the returned {@code Mono} is subscribed, on a
	 * {@code boundedElastic} thread that then waits for the handler's {@code Mono}, and the outcome is
	 * recorded when it completes. The call does not stop when the returned {@code Mono} is cancelled (a
	 * client that disconnects, a timeout): its outcome is still recorded, so that a repeat never runs it
	 * again while it may have taken effect.
	 */
	Mono<CallToolResult> callAsync(CallToolRequest request, Supplier<Mono<CallToolResult>> handler) {
		return Mono.defer(() -> {
			// What the MCP decorator bound where the call is subscribed, bound again where it runs.
			Optional<Run> run = RunContext.current();
			Optional<McpAsyncCalls.Call> answered = McpAsyncCalls.current();
			Supplier<CallToolResult> work = () -> call(request, () -> handler.get().block());
			Supplier<CallToolResult> inRun = () -> run.isPresent() ? RunContext.supply(run.get(), work) : work.get();
			Supplier<CallToolResult> bound = () -> answered.isPresent() ? McpAsyncCalls.bound(answered.get(), inRun)
					: inRun.get();
			// A future the subscriber cannot cancel: the work runs to its outcome whatever the subscriber does.
			CompletableFuture<CallToolResult> outcome = CompletableFuture.supplyAsync(bound,
					(task) -> Schedulers.boundedElastic().schedule(task));
			return Mono.fromFuture(outcome, true);
		});
	}

	/** A tool's error result, carried out of the call so that it is recorded as the call's failure. */
	static final class ErrorResult extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient CallToolResult result;

		ErrorResult(CallToolResult result) {
			super(textOf(result), null, false, false);
			this.result = result;
		}

		private static String textOf(CallToolResult result) {
			return result.content()
				.stream()
				.filter(McpSchema.TextContent.class::isInstance)
				.map((content) -> ((McpSchema.TextContent) content).text())
				.findFirst()
				.orElse("the tool answered with an error result");
		}

	}

}
