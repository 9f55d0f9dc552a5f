package io.idempotency.ai;

import java.util.Objects;
import java.util.Optional;

import io.idempotency.Answer;
import io.idempotency.AnswerText;
import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallScope;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * A tool callback that tells the model how an idempotent call was answered, in the very text it reads for
 * that call: a replayed plain result becomes
 * {@code {"replayed": true, "kind": "replayed", "message": "...", "result": <the stored result>}}, and the
 * library's refusals (in progress, previously failed, no run, ...) become
 * {@code {"replayed": ..., "kind": "...", "message": "..."}} instead of an exception, on every path:
 * Spring AI's tool loop, a callback called directly, an MCP server (where {@link IdempotentMcpTools} decorates
 * the server's tools, it tells the answer in the MCP result instead).
 *
 * <p>The answer is observed on the thread that makes the call ({@link IdempotentCallScope}), so it is
 * right however many calls a batch holds, in whatever order or on whatever threads they run, and a call
 * refused before the advice gets no notice. Tools that return {@code ToolResult} say what happened
 * themselves and are passed through; so are {@code returnDirect} tools, whose result goes to the
 * application, not the model (the application checks {@code IdempotentCallScope} or the ledger instead).
 */
public final class IdempotentToolCallback implements ToolCallback {

	private final ToolCallback delegate;

	private IdempotentToolCallback(ToolCallback delegate) {
		this.delegate = delegate;
	}

	/** The callback, decorated; one already decorated is returned as it is. */
	public static ToolCallback of(ToolCallback callback) {
		Objects.requireNonNull(callback, "callback");
		return (callback instanceof IdempotentToolCallback) ? callback
				: new IdempotentToolCallback(ProxiedToolMethods.callable(callback));
	}

	/** The callback this one decorates. */
	public ToolCallback delegate() {
		return this.delegate;
	}

	@Override
	public ToolDefinition getToolDefinition() {
		return this.delegate.getToolDefinition();
	}

	@Override
	public ToolMetadata getToolMetadata() {
		return this.delegate.getToolMetadata();
	}

	@Override
	public String call(String toolInput) {
		return answer(() -> this.delegate.call(toolInput));
	}

	@Override
	public String call(String toolInput, ToolContext toolContext) {
		return answer(() -> this.delegate.call(toolInput, toolContext));
	}

	private String answer(java.util.function.Supplier<String> call) {
		if (McpAnswering.onThisThread()) {
			// An MCP server's tool, decorated: the answer is told in the MCP result, once.
			return call.get();
		}
		Optional<McpAsyncCalls.Call> asynchronous = McpAsyncCalls.ofBoundRun();
		if (asynchronous.isPresent()) {
			// The same, on an asynchronous server's thread that its run reached: the call learns its answer here.
			try (IdempotentCallScope scope = IdempotentCallScope.open()) {
				try {
					return call.get();
				}
				finally {
					asynchronous.get().told(scope.last());
				}
			}
		}
		boolean returnDirect = getToolMetadata().returnDirect();
		try (IdempotentCallScope scope = IdempotentCallScope.open()) {
			String result;
			try {
				result = call.get();
			}
			catch (RuntimeException ex) {
				// The library's answer only where it is this call's own: not that of a call the tool made inside.
				Optional<String> answer = AnswerText.ofFailure(ex, ownCall(scope).orElse(null));
				if (answer.isPresent()) {
					return answer.get();
				}
				throw ex;
			}
			Optional<IdempotentCall> answered = ownCall(scope);
			if (!returnDirect && answered.isPresent() && answered.get().answer().isReplayWithResult()
					&& !answered.get().envelope()) {
				return AnswerText.replayed(answered.get(), result);
			}
			return result;
		}
	}

	/** This tool's own call: a tool that is not idempotent may make idempotent calls of its own. */
	private Optional<IdempotentCall> ownCall(IdempotentCallScope scope) {
		return scope.last().filter((last) -> last.isCallOf(getToolDefinition().name()));
	}

	@Override
	public String toString() {
		return "IdempotentToolCallback[" + this.delegate + "]";
	}

}
