package io.idempotency.ai;

import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;

import io.idempotency.IdempotentCallScope;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

/**
 * The tools of a synchronous MCP server, stateful or stateless, decorated: each call runs in the run its
 * {@code _meta} names, on the thread that serves it, and its result tells how it was answered.
 */
final class McpSyncTools {

	private final McpMetaRuns metaRuns;

	private final McpToolHints hints;

	private final McpAnswers answers;

	McpSyncTools(McpMetaRuns metaRuns, McpToolHints hints, McpAnswers answers) {
		this.metaRuns = metaRuns;
		this.hints = hints;
		this.answers = answers;
	}

	McpServerFeatures.SyncToolSpecification decorate(McpServerFeatures.SyncToolSpecification tool) {
		if (tool.callHandler() instanceof Decorated) {
			return tool;
		}
		var handler = tool.callHandler();
		return new McpServerFeatures.SyncToolSpecification(this.hints.advertise(tool.tool()),
				(Decorated.Stateful) (exchange, request) -> call(request, () -> handler.apply(exchange, request)));
	}

	McpStatelessServerFeatures.SyncToolSpecification decorate(McpStatelessServerFeatures.SyncToolSpecification tool) {
		if (tool.callHandler() instanceof Decorated) {
			return tool;
		}
		var handler = tool.callHandler();
		return new McpStatelessServerFeatures.SyncToolSpecification(this.hints.advertise(tool.tool()),
				(Decorated.Stateless) (context, request) -> call(request, () -> handler.apply(context, request)));
	}

	private CallToolResult call(CallToolRequest request, Supplier<CallToolResult> handler) {
		if (this.metaRuns.refuses(request)) {
			return this.answers.invalidRun();
		}
		Supplier<CallToolResult> answered = () -> answer(request.name(), handler);
		Optional<Run> run = this.metaRuns.run(request);
		return run.isPresent() ? RunContext.supply(run.get(), answered) : answered.get();
	}

	private CallToolResult answer(String toolName, Supplier<CallToolResult> handler) {
		Boolean outer = McpAnswering.enter();
		try (IdempotentCallScope scope = IdempotentCallScope.open()) {
			CallToolResult result = handler.get();
			return this.answers.answered(toolName, scope.last(), result);
		}
		finally {
			McpAnswering.exit(outer);
		}
	}

	/** A call handler this class made. */
	private interface Decorated {

		interface Stateful extends Decorated, BiFunction<McpSyncServerExchange, CallToolRequest, CallToolResult> {

		}

		interface Stateless extends Decorated, BiFunction<McpTransportContext, CallToolRequest, CallToolResult> {

		}

	}

}
