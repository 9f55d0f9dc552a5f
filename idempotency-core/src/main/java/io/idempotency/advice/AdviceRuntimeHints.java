package io.idempotency.advice;

import java.util.List;

import io.idempotency.Answer;
import io.idempotency.ToolResult;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeHint;
import org.springframework.util.ReflectionUtils;

/**
 * What the advice reads by reflection whatever the application's tools, where reflection is known ahead of
 * time (a native image): a {@link ToolResult} and its {@link Answer} as JSON, the run in a Spring AI tool
 * context, and the status of an HTTP response exception (a gateway's 502, 503 or 504 leaves the outcome
 * unknown). The classes of optional libraries are named, and registered only where present. Listed in
 * {@code META-INF/spring/aot.factories}.
 */
final class AdviceRuntimeHints implements RuntimeHintsRegistrar {

	/** Read by {@code RunResolver} without depending on Spring AI. */
	static final String TOOL_CONTEXT = "org.springframework.ai.chat.model.ToolContext";

	/** The classes of the statuses of HTTP response exceptions. */
	static final List<String> HTTP_STATUS_CODES = List.of("org.springframework.http.HttpStatus",
			"org.springframework.http.DefaultHttpStatusCode");

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), ToolResult.class, Answer.class);
		// Jackson writes an answer as its kind, the value of its @JsonValue method.
		hints.reflection().registerMethod(ReflectionUtils.findMethod(Answer.class, "kind"), ExecutableMode.INVOKE);
		hints.reflection().registerTypeIfPresent(classLoader, TOOL_CONTEXT, (type) -> invoke(type, "getContext"));
		FailureClassifier.HTTP_RESPONSE_EXCEPTIONS.forEach((name) -> hints.reflection()
			.registerTypeIfPresent(classLoader, name, (type) -> invoke(type, "getStatusCode")));
		HTTP_STATUS_CODES.forEach((name) -> hints.reflection()
			.registerTypeIfPresent(classLoader, name, (type) -> invoke(type, "value")));
	}

	private static void invoke(TypeHint.Builder type, String method) {
		type.withMethod(method, List.of(), ExecutableMode.INVOKE);
	}

}
