package io.idempotency.advice;

import io.idempotency.DifferentDetails;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.BaseStream;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.key.KeyArguments;
import io.idempotency.ledger.ClaimRequest;

import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;

/**
 * An idempotent tool, parsed once and checked: its name, how its results are stored and replayed, how its
 * failures are classified, how it is reconciled, and which of its calls need a person's approval. An {@link IdempotentTool} method has its method and
 * reconcile method; an {@link IdempotentFunction} has neither ({@code null}).
 */
record ToolDescriptor(Method method, String name, String toolCallName, boolean envelope, ResolvableType dataType, boolean returnsNothing,
		Method reconcile, boolean transactional, List<Class<? extends Throwable>> unknownOn,
		List<Class<? extends Throwable>> failedOn, Set<String> sensitive, Duration waitForRunning,
		KeyArguments keyArguments, DifferentDetails onDifferentDetails, ApprovalNeed approval) {

	private static final String SPRING_AI_TOOL = "org.springframework.ai.tool.annotation.Tool";

	/** The longest a repeat may wait for its running call. */
	static final Duration LONGEST_WAIT = Duration.ofHours(1);

	private static final Pattern SIMPLE_DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

	private static final String SPRING_AI_MCP_TOOL = "org.springframework.ai.mcp.annotation.McpTool";

	private static final String LANGCHAIN4J_TOOL = "dev.langchain4j.agent.tool.Tool";

	/** Results that complete later, named because their libraries are optional. */
	private static final List<String> ASYNCHRONOUS_TYPES = List.of("java.util.concurrent.Flow$Publisher",
			"org.reactivestreams.Publisher", "kotlinx.coroutines.flow.Flow", "kotlinx.coroutines.Deferred",
			"io.reactivex.rxjava3.core.ObservableSource", "io.reactivex.rxjava3.core.SingleSource",
			"io.reactivex.rxjava3.core.MaybeSource", "io.reactivex.rxjava3.core.CompletableSource",
			"io.reactivex.ObservableSource", "io.reactivex.SingleSource", "io.reactivex.MaybeSource",
			"io.reactivex.CompletableSource");

	/** Parses the tool; adds each thing wrong with it to the problems, in words that name the tool. */
	static ToolDescriptor describe(Method method, Class<?> targetClass, List<String> problems) {
		IdempotentTool annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentTool.class);
		if (annotation == null) {
			throw new IllegalArgumentException(method + " is not annotated with @IdempotentTool");
		}
		String name = nameOf(method, annotation);
		String where = "Tool '" + name + "' (" + ClassUtils.getShortName(targetClass) + "." + method.getName() + ")";
		List<String> found = new ArrayList<>();
		checkName(name, found);
		checkMethod(method, found);
		ResolvableType returnType = ResolvableType.forMethodReturnType(method, targetClass);
		checkReturnType(returnType, found);
		ResolvableType dataType = dataTypeOf(returnType);
		Set<String> sensitive = new LinkedHashSet<>(Arrays.asList(annotation.sensitive()));
		sensitive.addAll(writeOnlyMembers(method));
		Method reconcile = null;
		if (!annotation.transactional()) {
			reconcile = ReconcileMethodCheck.find(annotation.reconcile(), method, targetClass, dataType, sensitive, found);
		}
		Duration waitForRunning = waitForRunning(annotation.waitForRunning(), found);
		checkWaitForRunning(waitForRunning, annotation.transactional(), found);
		KeyArguments keyArguments = keyArguments(annotation, method, found);
		ApprovalNeed approval = ApprovalNeed.of(annotation, name, method, targetClass, found);
		found.forEach((problem) -> problems.add(where + " " + problem));
		return new ToolDescriptor(method, name, toolCallName(method), returnType, reconcile, annotation.transactional(),
				List.of(annotation.unknownOn()), List.of(annotation.failedOn()), Set.copyOf(sensitive), waitForRunning,
				keyArguments, annotation.onDifferentDetails(), approval);
	}

	/**
	 * Describes an idempotent function; adds each thing wrong with it to the problems, in words that name it.
	 * It has no method: its calls are keyed by their arguments as given.
	 */
	static ToolDescriptor of(IdempotentFunction<?> function, List<String> problems) {
		String name = function.name();
		List<String> found = new ArrayList<>();
		checkName(name, found);
		ResolvableType returnType = function.resultType();
		checkReturnType(returnType, found);
		checkWaitForRunning(function.waitForRunning(), function.transactional(), found);
		ApprovalNeed approval = ApprovalNeed.of(function, found);
		found.forEach((problem) -> problems.add("Function '" + name + "' " + problem));
		return new ToolDescriptor(null, name, name, returnType, null, function.transactional(), function.unknownOn(),
				function.failedOn(), function.sensitive(), function.waitForRunning(), function.keyArguments(),
				function.onDifferentDetails(), approval);
	}

	/**
	 * The arguments an annotated tool keys on: every path's first name is a parameter that carries intent, and
	 * a deeper name a member its type has (where the type tells: a map's keys are not known).
	 */
	private static KeyArguments keyArguments(IdempotentTool annotation, Method method, List<String> problems) {
		boolean only = annotation.keyArguments().length > 0;
		boolean excluding = annotation.keyExcludes().length > 0;
		if (only && excluding) {
			problems.add("has keyArguments and keyExcludes: name the arguments that make up the key, or those left out"
					+ " of it, not both");
			return KeyArguments.all();
		}
		if (!only && !excluding) {
			if (annotation.onDifferentDetails() != DifferentDetails.REPLAY) {
				problems.add("has onDifferentDetails but neither keyArguments nor keyExcludes: with every argument in"
						+ " the key, no repeat has other details");
			}
			return KeyArguments.all();
		}
		KeyArguments chosen;
		try {
			chosen = only ? KeyArguments.only(Arrays.asList(annotation.keyArguments()))
					: KeyArguments.excluding(Arrays.asList(annotation.keyExcludes()));
		}
		catch (IllegalArgumentException ex) {
			problems.add("has " + ex.getMessage());
			return KeyArguments.all();
		}
		String attribute = only ? "keyArguments" : "keyExcludes";
		Map<String, Parameter> parameters = new LinkedHashMap<>();
		for (Parameter parameter : method.getParameters()) {
			if (!isContextParameter(parameter)) {
				parameters.put(parameter.getName(), parameter);
			}
		}
		for (String path : chosen.paths()) {
			List<String> segments = KeyArguments.segments(path);
			Parameter parameter = parameters.get(segments.get(0));
			if (parameter == null) {
				problems.add("has " + attribute + " '" + path + "', but '" + segments.get(0) + "' is not one of its"
						+ " parameters " + parameters.keySet());
				continue;
			}
			ArgumentMembers.missingMember(parameter.getParameterizedType(), segments.subList(1, segments.size()))
				.ifPresent((member) -> problems.add("has " + attribute + " '" + path + "', but its arguments have no"
						+ " member '" + member + "' there"));
		}
		if (only && chosen.paths().containsAll(parameters.keySet())) {
			problems.add("has keyArguments naming every parameter: leave keyArguments out, and its keys stay those of"
					+ " every argument");
		}
		if (!only && chosen.paths().containsAll(parameters.keySet())) {
			problems.add("has keyExcludes naming every parameter: its key would be the same for every call of a run");
		}
		return chosen;
	}

	/** The bound of a repeat's wait for a running call: {@code "2s"}, {@code "500ms"}, ISO-8601; zero if blank. */
	static Duration waitForRunning(String text, List<String> problems) {
		String value = text.strip();
		if (value.isEmpty()) {
			return Duration.ZERO;
		}
		Matcher simple = SIMPLE_DURATION.matcher(value);
		try {
			Duration bound;
			if (simple.matches()) {
				long amount = Long.parseLong(simple.group(1));
				bound = switch (simple.group(2)) {
					case "ms" -> Duration.ofMillis(amount);
					case "s" -> Duration.ofSeconds(amount);
					case "m" -> Duration.ofMinutes(amount);
					default -> Duration.ofHours(amount);
				};
			}
			else {
				bound = Duration.parse(value);
			}
			if (!bound.isNegative()) {
				return bound;
			}
		}
		catch (ArithmeticException | java.time.format.DateTimeParseException ex) {
			// Named below.
		}
		problems.add("has waitForRunning \"" + text + "\", which is not a duration: write it as \"2s\", \"500ms\","
				+ " \"1m\" or ISO-8601 (\"PT2S\")");
		return Duration.ZERO;
	}

	private static void checkWaitForRunning(Duration waitForRunning, boolean transactional, List<String> problems) {
		if (waitForRunning.compareTo(LONGEST_WAIT) > 0) {
			problems.add("has waitForRunning " + waitForRunning + ", longer than a repeat may wait (" + LONGEST_WAIT
					+ "): a caller that waits that long has given up");
		}
		if (transactional && !waitForRunning.isZero()) {
			problems.add("is transactional and has waitForRunning: a repeat of a transactional call waits on the running"
					+ " call's uncommitted claim already, until it commits or the database's lock wait ends. Remove"
					+ " waitForRunning");
		}
	}

	/** A tool of this result type: how its result is stored and replayed is read off the type, once. */
	private ToolDescriptor(Method method, String name, String toolCallName, ResolvableType returnType, Method reconcile,
			boolean transactional, List<Class<? extends Throwable>> unknownOn, List<Class<? extends Throwable>> failedOn,
			Set<String> sensitive, Duration waitForRunning, KeyArguments keyArguments,
			DifferentDetails onDifferentDetails, ApprovalNeed approval) {
		this(method, name, toolCallName, ToolResult.class.equals(returnType.resolve()), dataTypeOf(returnType),
				void.class.equals(returnType.resolve()) || Void.class.equals(returnType.resolve()), reconcile,
				transactional, unknownOn, failedOn, sensitive, waitForRunning, keyArguments, onDifferentDetails,
				approval);
	}

	/** The type of the data a result of this type carries: a {@code ToolResult}'s own, else the type itself. */
	private static ResolvableType dataTypeOf(ResolvableType returnType) {
		return ToolResult.class.equals(returnType.resolve()) ? returnType.getGeneric(0) : returnType;
	}

	/** The tool's name: the annotation's, else Spring AI's {@code @Tool} name, else the method's. */
	static String nameOf(Method method, IdempotentTool annotation) {
		if (!annotation.name().isBlank()) {
			return annotation.name();
		}
		return toolCallName(method);
	}

	/**
	 * The name a framework exposes the tool under: its Spring AI {@code @Tool} name, else its MCP
	 * {@code @McpTool} name, else its LangChain4j {@code @Tool} name, else the method's.
	 */
	static String toolCallName(Method method) {
		MergedAnnotations annotations = MergedAnnotations.from(method);
		for (String annotation : new String[] { SPRING_AI_TOOL, SPRING_AI_MCP_TOOL, LANGCHAIN4J_TOOL }) {
			MergedAnnotation<?> tool = annotations.get(annotation);
			if (tool.isPresent() && tool.hasNonDefaultValue("name") && !tool.getString("name").isBlank()) {
				return tool.getString("name");
			}
		}
		return method.getName();
	}

	/**
	 * The members of the tool's arguments that their types mark write-only: read from the request, never
	 * written back, the usual mark of a secret. They are part of the key and stored redacted.
	 */
	private static Set<String> writeOnlyMembers(Method method) {
		Set<String> names = new LinkedHashSet<>();
		for (Parameter parameter : method.getParameters()) {
			if (!isContextParameter(parameter)) {
				ArgumentMembers.of(parameter.getParameterizedType()).forEach((name, writeOnly) -> {
					if (writeOnly) {
						names.add(name);
					}
				});
			}
		}
		return names;
	}

	static boolean isContextParameter(Parameter parameter) {
		return IdempotencyKeys.isContextParameter(parameter);
	}

	/** The ledger stores the name with every call: one it would refuse is refused at start instead. */
	private static void checkName(String name, List<String> problems) {
		if (name.length() > ClaimRequest.MAX_NAME_LENGTH) {
			problems.add("has a name of " + name.length() + " characters; the ledger stores at most "
					+ ClaimRequest.MAX_NAME_LENGTH);
		}
		int control = ClaimRequest.controlCharacterAt(name);
		if (control >= 0) {
			problems.add("has a name holding the control character " + ClaimRequest.codePoint(name, control)
					+ " at index " + control + ", which the ledger refuses");
		}
	}

	private static void checkMethod(Method method, List<String> problems) {
		int modifiers = method.getModifiers();
		if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers)) {
			problems.add("is " + Modifier.toString(modifiers & (Modifier.STATIC | Modifier.PRIVATE | Modifier.FINAL))
					+ ": a proxy cannot intercept it, so its calls would not be deduplicated. Make it public and not"
					+ " final or static");
		}
		for (Parameter parameter : method.getParameters()) {
			if (!parameter.isNamePresent() && !isContextParameter(parameter)) {
				problems.add("has no parameter names in its class file: compile with -parameters"
						+ " (maven-compiler-plugin <parameters>true</parameters>), because keys are derived by"
						+ " parameter name");
				return;
			}
		}
	}

	private static void checkReturnType(ResolvableType returnType, List<String> problems) {
		Class<?> type = returnType.toClass();
		boolean asynchronous = CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
				|| ASYNCHRONOUS_TYPES.stream().anyMatch((name) -> isAssignable(name, type));
		if (asynchronous) {
			problems.add("returns " + returnType + ", which completes later: asynchronous results are not supported."
					+ " Return the result itself (or void from an @Async method)");
		}
		else if (BaseStream.class.isAssignableFrom(type)) {
			problems.add("returns " + returnType + ", which produces its elements only when it is consumed, after the"
					+ " outcome is recorded: lazy results are not supported. Return a List (stream.toList())");
		}
	}

	private static boolean isAssignable(String typeName, Class<?> type) {
		for (Class<?> candidate = type; candidate != null; candidate = candidate.getSuperclass()) {
			if (candidate.getName().equals(typeName)
					|| ClassUtils.getAllInterfacesForClassAsSet(candidate).stream().anyMatch((i) -> i.getName().equals(typeName))) {
				return true;
			}
		}
		return false;
	}

}
