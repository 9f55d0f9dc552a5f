package io.idempotency.ai;

import java.util.Set;

import io.modelcontextprotocol.spec.McpSchema;

/**
 * The hints an MCP tool advertises: {@code idempotentHint: true} for a tool exposed as idempotent, its other
 * hints kept as they are.
 */
final class McpToolHints {

	private final Set<String> idempotentToolNames;

	McpToolHints(Set<String> idempotentToolNames) {
		this.idempotentToolNames = idempotentToolNames;
	}

	/** The tool, advertising {@code idempotentHint} where its name is an idempotent tool's; otherwise as it is. */
	McpSchema.Tool advertise(McpSchema.Tool tool) {
		return this.idempotentToolNames.contains(tool.name()) ? hinted(tool) : tool;
	}

	/** The tool, advertising {@code idempotentHint: true}; its other hints are kept. */
	static McpSchema.Tool hinted(McpSchema.Tool tool) {
		McpSchema.ToolAnnotations hints = tool.annotations();
		McpSchema.ToolAnnotations advertised = (hints != null)
				? new McpSchema.ToolAnnotations(hints.title(), hints.readOnlyHint(), hints.destructiveHint(), true,
						hints.openWorldHint(), hints.returnDirect())
				: new McpSchema.ToolAnnotations(null, null, null, true, null, null);
		return new McpSchema.Tool(tool.name(), tool.title(), tool.description(), tool.inputSchema(),
				tool.outputSchema(), advertised, tool.meta(), tool.icons());
	}

}
