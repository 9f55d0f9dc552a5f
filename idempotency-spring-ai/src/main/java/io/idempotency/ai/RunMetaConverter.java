package io.idempotency.ai;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.idempotency.ledger.ClaimRequest;
import io.idempotency.run.RunContext;
import io.idempotency.run.RunResolver;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;

/**
 * Sends the current run across the MCP boundary: an application on Spring AI's MCP client names its run in
 * the {@code _meta} of each {@code tools/call} it makes, under the entry this library's MCP servers read
 * ({@value IdempotentMcpTools#DEFAULT_RUN_ID_META_KEY} unless configured), so that a remote server on this
 * library deduplicates the agent's retries and repeats within the run, and a new run is a new action there
 * too.
 *
 * <p>The run is the call's own, found as for this application's own tools: the run id in its tool context
 * (under the configured key), else the run bound with {@link RunContext} on the thread making the call, else
 * the application's run sources; never one remembered from another call. A call with none sends no run
 * entry. The other entries are the delegate's (Spring AI's default converter copies the tool context),
 * without the tool context's run id and user id: the local user never leaves the application. The remote
 * server takes the user of the run from its own authentication; where that is the agent's one service
 * identity, run ids must not repeat across the application's users (the run-per-prompt advisor's are
 * random).
 */
public final class RunMetaConverter implements ToolContextToMcpMetaConverter {

	private final ToolContextToMcpMetaConverter delegate;

	private final String runIdMetaKey;

	private final RunResolver runs;

	/**
	 * @param delegate the converter of the tool context's other entries
	 * @param runIdMetaKey the {@code _meta} entry that names the run, as the remote server reads it
	 * @param runs finds the call's run, as it is found for this application's own tools: its tool context,
	 * else the bound {@code RunContext}, else the application's run sources
	 */
	public RunMetaConverter(ToolContextToMcpMetaConverter delegate, String runIdMetaKey, RunResolver runs) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.runIdMetaKey = requireText(runIdMetaKey, "runIdMetaKey");
		this.runs = Objects.requireNonNull(runs, "runs");
	}

	/** Spring AI's default converter, sending the run under the default entries. */
	public static RunMetaConverter defaults() {
		return new RunMetaConverter(ToolContextToMcpMetaConverter.defaultConverter(),
				IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, new RunResolver("runId", "userId", List.of()));
	}

	@Override
	public Map<String, Object> convert(ToolContext toolContext) {
		Map<String, Object> converted = this.delegate.convert(toolContext);
		Map<String, Object> meta = new LinkedHashMap<>((converted != null) ? converted : Map.of());
		// The run travels under its own entry, and the local user never leaves the application.
		meta.remove(this.runs.runIdKey());
		meta.remove(this.runs.userIdKey());
		Map<String, Object> context = (toolContext != null && toolContext.getContext() != null)
				? toolContext.getContext() : Map.of();
		this.runs.resolve(context).ifPresent((run) -> meta.put(this.runIdMetaKey, run.runId()));
		return meta;
	}

	private static String requireText(String value, String name) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank");
		}
		if (value.length() > ClaimRequest.MAX_NAME_LENGTH || ClaimRequest.controlCharacterAt(value) >= 0) {
			throw new IllegalArgumentException(name + " must be at most " + ClaimRequest.MAX_NAME_LENGTH
					+ " characters, without control characters");
		}
		return value;
	}

}
