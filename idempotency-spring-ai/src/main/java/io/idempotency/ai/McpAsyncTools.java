package io.idempotency.ai;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.run.RunSource;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The tools of an asynchronous MCP server, stateful or stateless, decorated: the run and the call
 * ({@link McpAsyncCalls}) are carried in the Reactor context to the threads that run the handler's work, which
 * runs to its outcome on a subscription of its own, and the result tells how the call was answered.
 */
final class McpAsyncTools {

	private final McpMetaRuns metaRuns;

	private final RunSource requestRun;

	private final McpToolHints hints;

	private final McpAnswers answers;

	McpAsyncTools(McpMetaRuns metaRuns, RunSource requestRun, McpToolHints hints, McpAnswers answers) {
		this.metaRuns = metaRuns;
		this.requestRun = requestRun;
		this.hints = hints;
		this.answers = answers;
		McpAsyncCalls.register();
	}

	McpServerFeatures.AsyncToolSpecification decorate(McpServerFeatures.AsyncToolSpecification tool) {
		if (tool.callHandler() instanceof Decorated) {
			return tool;
		}
		var handler = tool.callHandler();
		return new McpServerFeatures.AsyncToolSpecification(this.hints.advertise(tool.tool()),
				(Decorated.Stateful) (exchange, request) -> call(request, () -> handler.apply(exchange, request)));
	}

	McpStatelessServerFeatures.AsyncToolSpecification decorate(McpStatelessServerFeatures.AsyncToolSpecification tool) {
		if (tool.callHandler() instanceof Decorated) {
			return tool;
		}
		var handler = tool.callHandler();
		return new McpStatelessServerFeatures.AsyncToolSpecification(this.hints.advertise(tool.tool()),
				(Decorated.Stateless) (context, request) -> call(request, () -> handler.apply(context, request)));
	}

	private Mono<CallToolResult> call(CallToolRequest request, Supplier<Mono<CallToolResult>> handler) {
		if (this.metaRuns.refuses(request)) {
			return Mono.just(this.answers.invalidRun());
		}
		// Without a _meta run, the run of the request, asked here, on the thread that received it: the tool runs
		// on another, where the request is not to be found.
		Run received = this.metaRuns.names(request) ? null
				: RunContext.current().or(this.requestRun::currentRun).orElse(null);
		return Mono.deferContextual((downstream) -> {
			// A run of its own for each subscription: the call is followed by it.
			Run run = this.metaRuns.run(request)
				.orElseGet(() -> (received != null) ? new Run(received.runId(), received.userId()) : null);
			McpAsyncCalls.Call call = new McpAsyncCalls.Call();
			Context carried = Context.of(downstream).put(McpAsyncCalls.CONTEXT_KEY, call);
			Context context = (run != null) ? carried.put(RunContext.CONTEXT_KEY, run) : carried;
			// Subscribed with the run and the call bound on the subscribing thread, as well as in the Reactor
			// context: propagation carries them to the thread that runs the handler's work either way.
			CompletableFuture<CallToolResult> outcome = McpAsyncCalls.bound(call, () -> {
				if (run == null) {
					return subscribe(handler, context);
				}
				McpAsyncCalls.follow(run, call);
				try {
					CompletableFuture<CallToolResult> subscribed = RunContext.supply(run, () -> subscribe(handler, context));
					subscribed.whenComplete((result, failure) -> McpAsyncCalls.unfollow(run));
					return subscribed;
				}
				catch (RuntimeException | Error ex) {
					McpAsyncCalls.unfollow(run);
					throw ex;
				}
			});
			// A cancel of the call does not reach the handler's work, which runs to its outcome: interrupted, a
			// tool that took effect would be recorded failed.
			return Mono.fromFuture(outcome, true)
				.map((result) -> this.answers.answered(request.name(), call.last(), result))
				// The library's answer only where it is this tool's own: not a refusal of a call it made.
				.onErrorResume((failure) -> this.answers.ofFailure(request.name(), call.last(), failure)
					.map(Mono::just)
					.orElseGet(() -> Mono.error(failure)));
		});
	}

	/** Subscribes to the handler's result, in the context given, on a subscription of its own. */
	private static CompletableFuture<CallToolResult> subscribe(Supplier<Mono<CallToolResult>> handler, Context context) {
		Mono<CallToolResult> called;
		try {
			called = handler.get();
		}
		catch (RuntimeException ex) {
			called = Mono.error(ex);
		}
		return called.contextWrite(context).toFuture();
	}

	/** A call handler this class made. */
	private interface Decorated {

		interface Stateful
				extends Decorated, BiFunction<McpAsyncServerExchange, CallToolRequest, Mono<CallToolResult>> {

		}

		interface Stateless extends Decorated, BiFunction<McpTransportContext, CallToolRequest, Mono<CallToolResult>> {

		}

	}

}
