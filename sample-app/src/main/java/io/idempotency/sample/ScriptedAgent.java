package io.idempotency.sample;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.ReplayStatistics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * The tool calls a model made in two runs, sent through Spring AI's own tool callbacks (the code that
 * binds a model's JSON arguments to a method) but without a model or a network. On Monday the model
 * drafts a quote, finds the first result ambiguous and calls again with its arguments reordered and
 * re-spelt, and opens a ticket twice. On Tuesday the user asks again: a new run.
 */
@Component
class ScriptedAgent implements ApplicationRunner {

	private static final Logger logger = LoggerFactory.getLogger(ScriptedAgent.class);

	record ToolCall(String runId, String tool, String argumentsJson, String why) {
	}

	static final List<ToolCall> SCRIPT = List.of(
			new ToolCall("monday-run", "checkInventory", "{\"sku\":\"SKU-4411\"}", "the model checks stock"),
			new ToolCall("monday-run", "draftQuote", "{\"accountName\":\"Henderson Industrial\",\"sku\":\"SKU-4411\",\"quantity\":200}",
					"the model drafts a quote"),
			new ToolCall("monday-run", "draftQuote", "{\"quantity\":200.0,\"sku\":\" SKU-4411\",\"accountName\":\"Henderson Industrial\"}",
					"the first result looked ambiguous, so the model calls again, arguments reordered"),
			new ToolCall("monday-run", "openTicket", "{\"accountName\":\"Henderson Industrial\",\"issue\":\"seal failure\"}",
					"the model opens a ticket"),
			new ToolCall("monday-run", "openTicket", "{\"issue\":\"seal failure \",\"accountName\":\"Henderson Industrial\"}",
					"and, unsure, opens it again"),
			new ToolCall("tuesday-run", "openTicket", "{\"accountName\":\"Henderson Industrial\",\"issue\":\"seal failure\"}",
					"the next day the fault recurs and the user asks again: a new run"));

	private final QuoteTools quoteTools;

	private final TicketTools ticketTools;

	private final TicketSystem tickets;

	private final JdbcLedger ledger;

	ScriptedAgent(QuoteTools quoteTools, TicketTools ticketTools, TicketSystem tickets, JdbcLedger ledger) {
		this.quoteTools = quoteTools;
		this.ticketTools = ticketTools;
		this.tickets = tickets;
		this.ledger = ledger;
	}

	@Override
	public void run(ApplicationArguments args) {
		// Decorated, so that what the model reads says how each idempotent call was answered.
		ToolCallback[] callbacks = IdempotentToolCallbacks.from(this.quoteTools, this.ticketTools);
		for (ToolCall call : SCRIPT) {
			ToolCallback callback = Arrays.stream(callbacks)
				.filter((c) -> c.getToolDefinition().name().equals(call.tool()))
				.findFirst()
				.orElseThrow();
			ToolContext context = new ToolContext(Map.of("runId", call.runId(), "userId", "rep-7"));
			String answer = callback.call(call.argumentsJson(), context);
			logger.info("{} | {} {} ({})\n    the model reads: {}", call.runId(), call.tool(), call.argumentsJson(),
					call.why(), answer);
		}
		this.ledger.flushReplayCounts();
		ReplayStatistics statistics = this.ledger.replayStatistics(java.time.Duration.ofDays(30));
		logger.info("Effects: {} quote(s) {}, {} ticket(s) {}", this.quoteTools.quotes().size(),
				this.quoteTools.quotes(), this.tickets.tickets().size(), this.tickets.tickets());
		logger.info("Ledger: {} executions, {} replays, replay rate {}%", statistics.executions(), statistics.replays(),
				Math.round(statistics.replayRate() * 1000) / 10.0);
	}

}
