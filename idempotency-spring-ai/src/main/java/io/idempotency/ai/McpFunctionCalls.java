package io.idempotency.ai;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.idempotency.AnsweredCall;
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
		AtomicBoolean ran = new AtomicBoolean();
		try {
			return this.calls.call(this.function, arguments(request), () -> {
				ran.set(true);
				return failedIfError(handler.get());
			});
		}
		catch (RuntimeException ex) {
			CallToolResult answer = resultOf(ex, ran.get());
			if (answer != null) {
				return answer;
			}
			throw ex;
		}
	}

	/**
	 * Calls an asynchronous handler, and holds no thread while it runs: the call is claimed on a
	 * {@code boundedElastic} thread (the ledger writes through JDBC), where the handler's {@code Mono} is then
	 * subscribed, and that thread is let go; the outcome is recorded on a {@code boundedElastic} thread when the
	 * {@code Mono} completes. The call does not stop when the returned {@code Mono} is cancelled (a client that
	 * disconnects, a timeout): its outcome is still recorded, so that a repeat never runs it again while it may
	 * have taken effect.
	 */
	Mono<CallToolResult> callAsync(CallToolRequest request, Supplier<Mono<CallToolResult>> handler) {
		return Mono.defer(() -> {
			// What the MCP decorator bound where the call is subscribed, bound again where it is claimed and recorded.
			Optional<Run> run = RunContext.current();
			Optional<McpAsyncCalls.Call> answered = McpAsyncCalls.current();
			Executor elastic = (task) -> Schedulers.boundedElastic().schedule(() -> bound(run, answered, task));
			// A future the subscriber cannot cancel: the work runs to its outcome whatever the subscriber does.
			CompletableFuture<CallToolResult> outcome = new CompletableFuture<>();
			AtomicBoolean ran = new AtomicBoolean();
			elastic.execute(() -> claimed(request, handler, elastic, ran).whenComplete((result, failure) -> {
				if (failure == null) {
					outcome.complete(result);
					return;
				}
				Throwable cause = unwrap(failure);
				CallToolResult answer = resultOf(cause, ran.get());
				if (answer != null) {
					outcome.complete(answer);
				}
				else {
					outcome.completeExceptionally(cause);
				}
			}));
			return Mono.fromFuture(outcome, true);
		});
	}

	/**
	 * The call, claimed on this thread: the handler's {@code Mono} subscribed here, with what this thread binds
	 * (the run, the call) carried to the threads that run its work, and its outcome recorded by {@code recording}.
	 */
	private CompletionStage<CallToolResult> claimed(CallToolRequest request, Supplier<Mono<CallToolResult>> handler,
			Executor recording, AtomicBoolean ran) {
		try {
			return this.calls.callAsync(this.function, arguments(request), () -> {
				ran.set(true);
				return handler.get().contextCapture().toFuture().thenApply(McpFunctionCalls::failedIfError);
			}, recording);
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static void bound(Optional<Run> run, Optional<McpAsyncCalls.Call> answered, Runnable task) {
		Runnable inRun = () -> {
			if (run.isPresent()) {
				RunContext.run(run.get(), task);
			}
			else {
				task.run();
			}
		};
		if (answered.isPresent()) {
			McpAsyncCalls.bound(answered.get(), inRun);
		}
		else {
			inRun.run();
		}
	}

	private static Map<String, Object> arguments(CallToolRequest request) {
		return (request.arguments() != null) ? request.arguments() : Map.of();
	}

	/** The result, or its error result thrown, so that it is recorded as the call's failure. */
	private static CallToolResult failedIfError(CallToolResult result) {
		if (result != null && Boolean.TRUE.equals(result.isError())) {
			throw new ErrorResultException(result);
		}
		return result;
	}

	/**
	 * The result a failure of the call stands for: the tool's error result, or the library's answer to this call
	 * as an error result ({@link IdempotentMcpTools} tells its kind); {@code null} for the tool's own exception.
	 * Once the handler ran, a library's answer in its failure is that of a call the handler made inside, which
	 * failed this call as the tool's own failure.
	 */
	private static CallToolResult resultOf(Throwable failure, boolean handlerRan) {
		if (failure instanceof ErrorResultException error) {
			return error.result;
		}
		if (failure instanceof AnsweredCall && !handlerRan) {
			return CallToolResult.builder()
				.content(List.of(McpSchema.TextContent.builder(failure.getMessage()).build()))
				.isError(true)
				.build();
		}
		return null;
	}

	private static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * A tool's error result, carried out of the call so that it is recorded as the call's failure. Its class name
	 * ends in {@code Exception}, as the error a repeat reads is written without such names.
	 */
	static final class ErrorResultException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient CallToolResult result;

		ErrorResultException(CallToolResult result) {
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
