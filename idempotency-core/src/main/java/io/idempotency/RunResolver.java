package io.idempotency;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.run.RunSource;

import org.springframework.util.ReflectionUtils;

/**
 * Finds the run of a tool call: in the call's own framework tool context (Spring AI's {@code ToolContext},
 * keys configurable), else the run bound with {@link RunContext}, else the first {@link RunSource} that
 * knows one.
 */
final class RunResolver {

	private final String runIdKey;

	private final String userIdKey;

	private final List<RunSource> sources;

	/** Spring AI's per-request tool context, which may carry the run. */
	private static final String TOOL_CONTEXT = "org.springframework.ai.chat.model.ToolContext";

	RunResolver(String runIdKey, String userIdKey, List<RunSource> sources) {
		this.runIdKey = runIdKey;
		this.userIdKey = userIdKey;
		this.sources = List.copyOf(sources);
	}

	Optional<Run> resolve(Object[] arguments) {
		for (Object argument : arguments) {
			if (argument != null && TOOL_CONTEXT.equals(argument.getClass().getName())) {
				Optional<Run> run = fromToolContext(argument);
				if (run.isPresent()) {
					return run;
				}
			}
		}
		Optional<Run> bound = RunContext.current();
		if (bound.isPresent()) {
			return bound;
		}
		for (RunSource source : this.sources) {
			Optional<Run> run = source.currentRun();
			if (run.isPresent()) {
				return run;
			}
		}
		return Optional.empty();
	}

	private Optional<Run> fromToolContext(Object toolContext) {
		Method getContext = ReflectionUtils.findMethod(toolContext.getClass(), "getContext");
		Object context = (getContext != null) ? ReflectionUtils.invokeMethod(getContext, toolContext) : null;
		if (!(context instanceof Map<?, ?> values)) {
			return Optional.empty();
		}
		Object runId = values.get(this.runIdKey);
		if (runId == null || runId.toString().isBlank()) {
			return Optional.empty();
		}
		Object userId = values.get(this.userIdKey);
		return Optional.of(new Run(runId.toString(), (userId != null) ? userId.toString() : null));
	}

}
