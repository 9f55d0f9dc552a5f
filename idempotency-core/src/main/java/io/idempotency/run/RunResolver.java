package io.idempotency.run;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.springframework.util.ReflectionUtils;

/**
 * Finds the run of a call, in this order: in the call's own framework tool context (Spring AI's
 * {@code ToolContext}; the keys of the run id and user id are configurable), else the run bound with
 * {@link RunContext}, else the first {@link RunSource} that knows one. The idempotency advice asks it for
 * every tool call, and Spring AI's run advisor for every {@code ChatClient} call, so both find the same run.
 */
public final class RunResolver {

	/** Spring AI's per-request tool context, which may carry the run. */
	private static final String TOOL_CONTEXT = "org.springframework.ai.chat.model.ToolContext";

	private final String runIdKey;

	private final String userIdKey;

	private final List<RunSource> sources;

	/**
	 * @param runIdKey the run id's key in a tool context
	 * @param userIdKey the user id's key in a tool context
	 * @param sources where to look for the run after the tool context and {@code RunContext}, in order
	 */
	public RunResolver(String runIdKey, String userIdKey, List<RunSource> sources) {
		this.runIdKey = requireText(runIdKey, "runIdKey");
		this.userIdKey = requireText(userIdKey, "userIdKey");
		this.sources = List.copyOf(Objects.requireNonNull(sources, "sources"));
	}

	/** The run of a tool method's invocation: from a tool context among its arguments, else as above. */
	public Optional<Run> resolve(Object[] arguments) {
		for (Object argument : arguments) {
			if (argument != null && TOOL_CONTEXT.equals(argument.getClass().getName())) {
				Optional<Run> run = fromToolContext(contextOf(argument));
				if (run.isPresent()) {
					return run;
				}
			}
		}
		return fromElsewhere();
	}

	/** The run of a call whose tool context is this map of values: from the map, else as above. */
	public Optional<Run> resolve(Map<String, ?> toolContext) {
		Optional<Run> run = fromToolContext(toolContext);
		return run.isPresent() ? run : fromElsewhere();
	}

	/** The user id in a tool context, or {@code null}. */
	public String userIdIn(Map<String, ?> toolContext) {
		Object userId = (toolContext != null) ? toolContext.get(this.userIdKey) : null;
		return (userId != null) ? userId.toString() : null;
	}

	/** The key of the run id in a tool context. */
	public String runIdKey() {
		return this.runIdKey;
	}

	/** The key of the user id in a tool context. */
	public String userIdKey() {
		return this.userIdKey;
	}

	private Optional<Run> fromElsewhere() {
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

	private static Map<?, ?> contextOf(Object toolContext) {
		Method getContext = ReflectionUtils.findMethod(toolContext.getClass(), "getContext");
		Object context = (getContext != null) ? ReflectionUtils.invokeMethod(getContext, toolContext) : null;
		return (context instanceof Map<?, ?> values) ? values : null;
	}

	private Optional<Run> fromToolContext(Map<?, ?> values) {
		if (values == null) {
			return Optional.empty();
		}
		Object runId = values.get(this.runIdKey);
		if (runId == null || runId.toString().isBlank()) {
			return Optional.empty();
		}
		Object userId = values.get(this.userIdKey);
		return Optional.of(new Run(runId.toString(), (userId != null) ? userId.toString() : null));
	}

	private static String requireText(String value, String name) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank");
		}
		return value;
	}

}
