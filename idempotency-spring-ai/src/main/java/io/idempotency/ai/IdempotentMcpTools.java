package io.idempotency.ai;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.run.RunSource;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;

/**
 * Idempotent tools on an MCP server (the MCP Java SDK's servers, synchronous or asynchronous, stateful or
 * stateless, as Spring AI's MCP server builds them from tool callbacks and {@code @McpTool} methods):
 * <ul>
 * <li>a {@code tools/call} request names its run in a {@code _meta} entry ({@value #DEFAULT_RUN_ID_META_KEY}
 * unless configured), bound for the call; without one, the run comes from the application's other sources
 * (the request's {@code Idempotency-Key} header, with the Spring Boot starter), asked where the request is
 * received, and a call with none follows the missing-run policy. MCP request ids are never keys: a client
 * makes a new one for every re-send;</li>
 * <li>every result of an idempotent tool's call says in its {@code _meta} how the call was answered: the
 * answer's kind ({@value #KIND_META_KEY}), whether it is a repeat ({@value #REPLAYED_META_KEY}) and, for a repeat
 * or a refusal, the message ({@value #MESSAGE_META_KEY}); a replay answers with the stored result and the notice
 * in its text content; structured content stays the stored result, so that it still validates against the
 * tool's output schema; {@code isError} is the tool's own for a call that executed, and {@code true} for a
 * repeat not executed again and for a refusal;</li>
 * <li>the tool's annotations advertise {@code idempotentHint: true}; its other hints are left as they are.</li>
 * </ul>
 * A {@code _meta} run that is not a non-blank string of at most 255 characters without control characters
 * is refused with an error result, and nothing runs. The user of a {@code _meta} run is the caller the
 * decorator is given (the request's authenticated user), so that one client never reads another's row.
 */
public final class IdempotentMcpTools {

	/** The {@code _meta} entry of a {@code tools/call} request that names its run, unless configured. */
	public static final String DEFAULT_RUN_ID_META_KEY = "io.idempotency/runId";

	/**
	 * The {@code _meta} entry of every {@code CallToolResult} of an idempotent tool's call that names how the call
	 * was answered: the answer's kind, as the text and the metrics name it ({@code executed}, {@code replayed},
	 * {@code in_progress}, {@code refused_without_run}, ...).
	 */
	public static final String KIND_META_KEY = "io.idempotency/kind";

	/**
	 * The {@code _meta} entry of every {@code CallToolResult} of an idempotent tool's call that says whether it
	 * is a repeat answered from an earlier call of its run ({@code true} for {@code replayed}, {@code in_progress},
	 * {@code previous_attempt_failed}, ...), not executed again.
	 */
	public static final String REPLAYED_META_KEY = "io.idempotency/replayed";

	/**
	 * The {@code _meta} entry of a {@code CallToolResult} that holds the library's message with its answer: a
	 * repeat not executed again, or a refusal; absent for a call that executed.
	 */
	public static final String MESSAGE_META_KEY = "io.idempotency/message";

	private final McpSyncTools sync;

	private final McpAsyncTools async;

	/**
	 * A decorator whose {@code _meta} runs have no user: rows of such runs answer every client that presents
	 * the run id, so use it only where the server's clients trust each other, or their run ids are secret.
	 * @param runIdMetaKey the {@code _meta} entry that names a call's run
	 * @param idempotentToolNames the names the idempotent tools are exposed under, which advertise
	 * {@code idempotentHint}; every call is decorated whatever its name, so that a run is bound for it
	 */
	public IdempotentMcpTools(String runIdMetaKey, Set<String> idempotentToolNames) {
		this(runIdMetaKey, idempotentToolNames, () -> null);
	}

	/**
	 * @param runIdMetaKey the {@code _meta} entry that names a call's run
	 * @param idempotentToolNames the names the idempotent tools are exposed under, which advertise
	 * {@code idempotentHint}; every call is decorated whatever its name, so that a run is bound for it
	 * @param caller the authenticated user of the request being served, asked on the thread that runs the
	 * call, or {@code null} when there is none: the user of a {@code _meta} run, so that another client's
	 * call with the same run id is refused rather than answered from this user's row
	 */
	public IdempotentMcpTools(String runIdMetaKey, Set<String> idempotentToolNames, Supplier<String> caller) {
		this(runIdMetaKey, idempotentToolNames, caller, Optional::empty);
	}

	/**
	 * @param runIdMetaKey the {@code _meta} entry that names a call's run
	 * @param idempotentToolNames the names the idempotent tools are exposed under, which advertise
	 * {@code idempotentHint}; every call is decorated whatever its name, so that a run is bound for it
	 * @param caller the authenticated user of the request being served, asked on the thread that runs the
	 * call, or {@code null} when there is none: the user of a {@code _meta} run, so that another client's
	 * call with the same run id is refused rather than answered from this user's row
	 * @param requestRun the run of the request being served, for a call that names none in {@code _meta} (with
	 * the Spring Boot starter, the request's {@code Idempotency-Key} header, or another of the application's run
	 * sources): on an asynchronous server it is asked where the call is received, on the request's thread, and
	 * bound for the call as a {@code _meta} run is, since the tool runs on another thread
	 */
	public IdempotentMcpTools(String runIdMetaKey, Set<String> idempotentToolNames, Supplier<String> caller,
			RunSource requestRun) {
		if (runIdMetaKey == null || runIdMetaKey.isBlank()) {
			throw new IllegalArgumentException("The _meta entry that names an MCP call's run must not be blank");
		}
		McpToolHints hints = new McpToolHints(
				Set.copyOf(Objects.requireNonNull(idempotentToolNames, "idempotentToolNames")));
		McpMetaRuns metaRuns = new McpMetaRuns(runIdMetaKey, Objects.requireNonNull(caller, "caller"));
		Objects.requireNonNull(requestRun, "requestRun");
		McpAnswers answers = new McpAnswers(runIdMetaKey);
		this.sync = new McpSyncTools(metaRuns, hints, answers);
		this.async = new McpAsyncTools(metaRuns, requestRun, hints, answers);
	}

	/**
	 * Makes an MCP tool written by hand idempotent: each call is an {@link IdempotentFunction} call keyed by
	 * the tool's name, the run and the request's arguments, and the tool advertises {@code idempotentHint}.
	 * An error result is recorded as the call's failure. Declared as a bean, the specification is then
	 * decorated as every tool of the server is (the run from {@code _meta}, the answer told).
	 * @param tool the tool, whose handler runs at most once per key
	 * @param function its idempotency: named as the tool, with a {@code CallToolResult} result (stored and
	 * replayed)
	 * @param calls the application's {@link IdempotentCalls}
	 * @throws IllegalArgumentException if the function's name or result type does not fit the tool
	 * @throws IllegalStateException if the function cannot be registered (another tool has its name, say)
	 */
	public static McpServerFeatures.SyncToolSpecification idempotent(McpServerFeatures.SyncToolSpecification tool,
			IdempotentFunction<CallToolResult> function, IdempotentCalls calls) {
		return McpFunctionTools.idempotent(tool, function, calls);
	}

	/**
	 * Makes an MCP tool of a stateless server, written by hand, idempotent.
	 * @see #idempotent(McpServerFeatures.SyncToolSpecification, IdempotentFunction, IdempotentCalls)
	 */
	public static McpStatelessServerFeatures.SyncToolSpecification idempotent(
			McpStatelessServerFeatures.SyncToolSpecification tool, IdempotentFunction<CallToolResult> function,
			IdempotentCalls calls) {
		return McpFunctionTools.idempotent(tool, function, calls);
	}

	/**
	 * Makes an MCP tool of an asynchronous server, written by hand, idempotent: the call is claimed on a
	 * {@code boundedElastic} thread when the handler's result is subscribed (the ledger writes through JDBC), the
	 * handler's {@code Mono} is subscribed there, and no thread waits for it: its outcome is recorded, on a
	 * {@code boundedElastic} thread, when it completes. A call whose client gives up, or whose {@code Mono} is
	 * cancelled, still runs to its outcome, which is recorded. The handler of a transactional tool runs in the
	 * claim's transaction: it makes its writes on the thread that subscribes to it
	 * ({@code Mono.fromCallable(...)} without {@code subscribeOn}), which waits for them.
	 * @see #idempotent(McpServerFeatures.SyncToolSpecification, IdempotentFunction, IdempotentCalls)
	 */
	public static McpServerFeatures.AsyncToolSpecification idempotent(McpServerFeatures.AsyncToolSpecification tool,
			IdempotentFunction<CallToolResult> function, IdempotentCalls calls) {
		return McpFunctionTools.idempotent(tool, function, calls);
	}

	/**
	 * Makes an MCP tool of a stateless asynchronous server, written by hand, idempotent.
	 * @see #idempotent(McpServerFeatures.AsyncToolSpecification, IdempotentFunction, IdempotentCalls)
	 */
	public static McpStatelessServerFeatures.AsyncToolSpecification idempotent(
			McpStatelessServerFeatures.AsyncToolSpecification tool, IdempotentFunction<CallToolResult> function,
			IdempotentCalls calls) {
		return McpFunctionTools.idempotent(tool, function, calls);
	}

	/** The tool specification of a stateful synchronous server, decorated; one already decorated is kept. */
	public McpServerFeatures.SyncToolSpecification decorate(McpServerFeatures.SyncToolSpecification tool) {
		return this.sync.decorate(tool);
	}

	/** The tool specification of a stateless synchronous server, decorated; one already decorated is kept. */
	public McpStatelessServerFeatures.SyncToolSpecification decorate(
			McpStatelessServerFeatures.SyncToolSpecification tool) {
		return this.sync.decorate(tool);
	}

	/**
	 * The tool specification of a stateful asynchronous server, decorated; one already decorated is kept. The
	 * run and the call are carried to the thread that runs the handler's work in the Reactor context, where
	 * Reactor's automatic context propagation (on with the starter) binds them: there the advice claims the
	 * call, and the answer is told when the handler's {@code Mono} completes. The handler's {@code Mono} is
	 * subscribed on a subscription of its own, which a cancel of the call does not reach: the tool is not
	 * interrupted, and runs to its outcome, which a repeat reads. A call without a {@code _meta} run runs in
	 * the run of its request, asked when the handler is called, on the thread that received the request.
	 */
	public McpServerFeatures.AsyncToolSpecification decorate(McpServerFeatures.AsyncToolSpecification tool) {
		return this.async.decorate(tool);
	}

	/** The tool specification of a stateless asynchronous server, decorated; one already decorated is kept. */
	public McpStatelessServerFeatures.AsyncToolSpecification decorate(
			McpStatelessServerFeatures.AsyncToolSpecification tool) {
		return this.async.decorate(tool);
	}

}
