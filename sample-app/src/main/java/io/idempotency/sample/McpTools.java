package io.idempotency.sample;

import java.util.ArrayList;
import java.util.List;

import io.idempotency.sample.tools.InventoryTools;
import io.idempotency.sample.tools.QuoteTools;
import io.idempotency.sample.tools.ReservationTools;
import io.idempotency.sample.tools.SendQuoteTools;
import io.idempotency.sample.tools.TicketTools;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The same five tools, served over MCP at {@code /mcp} by Spring AI's MCP server: four annotated methods and
 * the {@code send_quote} function callback. A client names the run
 * of each {@code tools/call} in its {@code _meta} ({@code io.idempotency/runId}).
 */
@Configuration(proxyBeanMethods = false)
class McpTools {

	@Bean
	ToolCallbackProvider salesTools(InventoryTools inventory, QuoteTools quotes, TicketTools tickets,
			ReservationTools reservations, SendQuoteTools sends) {
		List<ToolCallback> tools = new ArrayList<>(List.of(
				MethodToolCallbackProvider.builder().toolObjects(inventory, quotes, tickets, reservations).build().getToolCallbacks()));
		tools.add(sends.sendQuote());
		return ToolCallbackProvider.from(tools);
	}

}
