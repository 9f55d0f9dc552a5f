package io.idempotency.ai;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.idempotency.ledger.ClaimRequest;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;

/**
 * Sends the current run across the MCP boundary: an application on Spring AI's MCP client names its run in
 * the {@code _meta} of each {@code tools/call} it makes, under the entry this library's MCP servers read
 * ({@value IdempotentMcpTools#DEFAULT_RUN_ID_META_KEY} unless configured), so that a remote server on this
 * library deduplicates the agent's retries and repeats within the run, and a new run is a new action there
 * too.
 *
 * <p>The run is the call's own: the run id in its tool context (under the configured key), else the run
 * bound with {@link RunContext} on the thread making the call; never one remembered from another call, so
 * that no request ever sends another user's run. A call with neither sends no run entry. The other
 * entries are the delegate's (Spring AI's default converter copies the tool context). The remote server
 * takes the user of the run from its own authentication, never from {@code _meta}.
 */
public final class RunMetaConverter implements ToolContextToMcpMetaConverter {

	private final ToolContextToMcpMetaConverter delegate;

	private final String runIdMetaKey;

	private final String runIdKey;

	/**
	 * @param delegate the converter of the tool context's other entries
	 * @param runIdMetaKey the {@code _meta} entry that names the run, as the remote server reads it
	 * @param runIdKey the run id's key in a tool context
	 */
	public RunMetaConverter(ToolContextToMcpMetaConverter delegate, String runIdMetaKey, String runIdKey) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.runIdMetaKey = requireText(runIdMetaKey, "runIdMetaKey");
		this.runIdKey = requireText(runIdKey, "runIdKey");
	}

	/** Spring AI's default converter, sending the run under the default entries. */
	public static RunMetaConverter defaults() {
		return new RunMetaConverter(ToolContextToMcpMetaConverter.defaultConverter(),
				IdempotentMcpTools.DEFAULT_RUN_ID_META_KEY, "runId");
	}

	@Override
	public Map<String, Object> convert(ToolContext toolContext) {
		Map<String, Object> converted = this.delegate.convert(toolContext);
		Map<String, Object> meta = new LinkedHashMap<>((converted != null) ? converted : Map.of());
		runIdOf(toolContext).ifPresent((runId) -> meta.put(this.runIdMetaKey, runId));
		return meta;
	}

	private Optional<String> runIdOf(ToolContext toolContext) {
		Object runId = (toolContext != null && toolContext.getContext() != null)
				? toolContext.getContext().get(this.runIdKey) : null;
		if (runId != null && !runId.toString().isBlank()) {
			return Optional.of(runId.toString());
		}
		return RunContext.current().map(Run::runId);
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
