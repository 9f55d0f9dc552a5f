package io.idempotency.ai;

import java.util.Optional;
import java.util.function.Supplier;

import io.idempotency.ledger.ClaimRequest;
import io.idempotency.run.Run;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;

/**
 * The run a {@code tools/call} request names in its {@code _meta} entry, with the caller the decorator is given
 * as its user, so that one client never reads another's row. An entry that is not a run id refuses the call.
 */
final class McpMetaRuns {

	private final String runIdMetaKey;

	private final Supplier<String> caller;

	McpMetaRuns(String runIdMetaKey, Supplier<String> caller) {
		this.runIdMetaKey = runIdMetaKey;
		this.caller = caller;
	}

	/** Whether the request names a run in {@code _meta}, valid or not. */
	boolean names(CallToolRequest request) {
		return entry(request) != null;
	}

	/**
	 * Whether the request's {@code _meta} entry is there but is not a run id (a non-blank string of at most
	 * 255 characters without control characters): the call is refused, and nothing runs.
	 */
	boolean refuses(CallToolRequest request) {
		Object runId = entry(request);
		return runId != null && !(runId instanceof String text && isRunId(text));
	}

	/**
	 * The run the request names in {@code _meta}, its user the caller asked now, on this thread; empty where it
	 * names none. Asked of a request that {@link #refuses} does not refuse.
	 */
	Optional<Run> run(CallToolRequest request) {
		Object runId = entry(request);
		return (runId != null) ? Optional.of(new Run((String) runId, this.caller.get())) : Optional.empty();
	}

	private Object entry(CallToolRequest request) {
		return (request.meta() != null) ? request.meta().get(this.runIdMetaKey) : null;
	}

	private static boolean isRunId(String text) {
		return !text.isBlank() && text.length() <= ClaimRequest.MAX_NAME_LENGTH
				&& ClaimRequest.controlCharacterAt(text) < 0;
	}

}
