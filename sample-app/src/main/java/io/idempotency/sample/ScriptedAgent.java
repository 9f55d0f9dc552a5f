package io.idempotency.sample;

import java.util.List;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * The tool calls a model made in two runs, replayed without a model: on Monday it drafts a quote, times
 * out, and retries with its arguments reordered and re-spelt; on Tuesday the user asks again.
 */
@Component
class ScriptedAgent implements ApplicationRunner {

	private static final Logger logger = LoggerFactory.getLogger(ScriptedAgent.class);

	record ToolCall(String runId, String tool, String argumentsJson, String why) {
	}

	static final List<ToolCall> SCRIPT = List.of(
			new ToolCall("monday-run", "draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}",
					"the model drafts a quote"),
			new ToolCall("monday-run", "draft_quote", "{\"quantity\":200.0,\"sku\":\" SKU-4411\"}",
					"the first result was ambiguous, so the model calls again"),
			new ToolCall("tuesday-run", "draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}",
					"the user asks again the next day"));

	@Override
	public void run(ApplicationArguments args) {
		IdempotencyKey previous = null;
		for (ToolCall call : SCRIPT) {
			IdempotencyKey key = IdempotencyKeys.derive(call.tool(), call.argumentsJson(), call.runId());
			String verdict = (previous == null) ? "a new intent"
					: key.equals(previous) ? "the same intent as the call before: one effect"
							: "a new intent: a second effect";
			logger.info("{} {} {} -> key {} ({}): {}", call.runId(), call.tool(), call.argumentsJson(),
					key.value().substring(0, 16), call.why(), verdict);
			previous = key;
		}
	}

}
