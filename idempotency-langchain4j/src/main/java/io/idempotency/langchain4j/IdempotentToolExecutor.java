package io.idempotency.langchain4j;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import io.idempotency.Answer;
import io.idempotency.AnswerText;
import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallScope;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

/**
 * A LangChain4j tool executor that runs each call in its run and tells the model how an idempotent call was
 * answered, in the tool result it reads for that call. The run is, in this order: the invocation
 * parameters' {@code runId} (and {@code userId}), a run bound with {@link RunContext} around the AI service
 * call, else the AI service invocation itself (its id): one user request, so that a new invocation is a new
 * run. Never the tool call's id, which the model makes anew for every call.
 */
final class IdempotentToolExecutor implements ToolExecutor {

	static final String RUN_ID = "runId";

	static final String USER_ID = "userId";

	private final ToolExecutor delegate;

	private final String toolName;

	IdempotentToolExecutor(ToolExecutor delegate, String toolName) {
		this.delegate = Objects.requireNonNull(delegate, "executor");
		this.toolName = Objects.requireNonNull(toolName, "toolName");
	}

	ToolExecutor delegate() {
		return this.delegate;
	}

	@Override
	public String execute(ToolExecutionRequest request, Object memoryId) {
		// No invocation: the run is the one bound around the call, or the application's, as for any tool.
		return answered(() -> ToolExecutionResult.builder().resultText(this.delegate.execute(request, memoryId)).build())
			.resultText();
	}

	@Override
	public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext context) {
		Supplier<ToolExecutionResult> call = () -> answered(() -> this.delegate.executeWithContext(request, context));
		Optional<Run> run = runOf(context);
		return run.isPresent() ? RunContext.supply(run.get(), call) : call.get();
	}

	/** The run to bind for the call, or empty where one is bound already. */
	private static Optional<Run> runOf(InvocationContext context) {
		Map<String, Object> parameters = (context != null && context.invocationParameters() != null)
				? context.invocationParameters().asMap() : Map.of();
		Object runId = parameters.get(RUN_ID);
		if (runId != null && !runId.toString().isBlank()) {
			Object userId = parameters.get(USER_ID);
			return Optional.of(new Run(runId.toString(), (userId != null) ? userId.toString() : null));
		}
		if (RunContext.current().isPresent() || context == null || context.invocationId() == null) {
			return Optional.empty();
		}
		return Optional.of(new Run(context.invocationId().toString(), null));
	}

	private ToolExecutionResult answered(Supplier<ToolExecutionResult> call) {
		try (IdempotentCallScope scope = IdempotentCallScope.open()) {
			ToolExecutionResult result;
			try {
				result = call.get();
			}
			catch (RuntimeException ex) {
				// The library's answer only where it is this tool's own: not a refusal of a call it made.
				Optional<String> answer = AnswerText.ofFailure(ex, ownCall(scope).orElse(null));
				if (answer.isPresent()) {
					return ToolExecutionResult.builder().isError(true).resultText(answer.get()).build();
				}
				throw ex;
			}
			Optional<IdempotentCall> answered = ownCall(scope);
			if (answered.isEmpty() || result == null || answered.get().envelope()) {
				return result;
			}
			Answer answer = answered.get().answer();
			if (answer.isReplayWithResult()) {
				return withText(result, AnswerText.replayed(answered.get(), result.resultText()));
			}
			if (result.isError() && answered.get().notExecuted()) {
				// LangChain4j made the library's exception an error result: the model reads its kind too.
				return withText(result, AnswerText.answer(answer, result.resultText()));
			}
			return result;
		}
	}

	/** The result, its text the library's: its value (for a tool that returns immediately) and attributes kept. */
	private static ToolExecutionResult withText(ToolExecutionResult result, String text) {
		return ToolExecutionResult.builder()
			.isError(result.isError())
			.result(result.result())
			.attributes(result.attributes())
			.resultText(text)
			.build();
	}

	/** This tool's own call: a tool that is not idempotent may make idempotent calls of its own. */
	private Optional<IdempotentCall> ownCall(IdempotentCallScope scope) {
		return scope.last().filter((last) -> last.isCallOf(this.toolName));
	}

	@Override
	public String toString() {
		return "IdempotentToolExecutor[" + this.toolName + ": " + this.delegate + "]";
	}

}
