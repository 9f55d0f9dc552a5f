package io.idempotency.ai;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

/**
 * MCP tool specifications written by hand, made idempotent: each handler is called through
 * {@link McpFunctionCalls}, and each tool advertises {@code idempotentHint}.
 */
final class McpFunctionTools {

	private McpFunctionTools() {
	}

	static McpServerFeatures.SyncToolSpecification idempotent(McpServerFeatures.SyncToolSpecification tool,
			IdempotentFunction<CallToolResult> function, IdempotentCalls calls) {
		McpFunctionCalls called = new McpFunctionCalls(tool.tool(), function, calls);
		var handler = tool.callHandler();
		return new McpServerFeatures.SyncToolSpecification(McpToolHints.hinted(tool.tool()),
				(exchange, request) -> called.call(request, () -> handler.apply(exchange, request)));
	}

	static McpStatelessServerFeatures.SyncToolSpecification idempotent(
			McpStatelessServerFeatures.SyncToolSpecification tool, IdempotentFunction<CallToolResult> function,
			IdempotentCalls calls) {
		McpFunctionCalls called = new McpFunctionCalls(tool.tool(), function, calls);
		var handler = tool.callHandler();
		return new McpStatelessServerFeatures.SyncToolSpecification(McpToolHints.hinted(tool.tool()),
				(context, request) -> called.call(request, () -> handler.apply(context, request)));
	}

	static McpServerFeatures.AsyncToolSpecification idempotent(McpServerFeatures.AsyncToolSpecification tool,
			IdempotentFunction<CallToolResult> function, IdempotentCalls calls) {
		McpFunctionCalls called = new McpFunctionCalls(tool.tool(), function, calls);
		var handler = tool.callHandler();
		return new McpServerFeatures.AsyncToolSpecification(McpToolHints.hinted(tool.tool()),
				(exchange, request) -> called.callAsync(request, () -> handler.apply(exchange, request)));
	}

	static McpStatelessServerFeatures.AsyncToolSpecification idempotent(
			McpStatelessServerFeatures.AsyncToolSpecification tool, IdempotentFunction<CallToolResult> function,
			IdempotentCalls calls) {
		McpFunctionCalls called = new McpFunctionCalls(tool.tool(), function, calls);
		var handler = tool.callHandler();
		return new McpStatelessServerFeatures.AsyncToolSpecification(McpToolHints.hinted(tool.tool()),
				(context, request) -> called.callAsync(request, () -> handler.apply(context, request)));
	}

}
