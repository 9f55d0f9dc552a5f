package io.idempotency.key;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * Derives idempotency keys (key specification version 1): the SHA-256 of the canonical JSON envelope
 * {@code {"arguments":A,"runId":R,"tool":T}}.
 *
 * <p>The key is scoped to the <em>run</em> (one user request to the agent), never to the user or the
 * session, and covers the canonicalised arguments: the same call retried within a run gets the same key,
 * whatever the order of its arguments or the white space around its strings; a new run gets a new key.
 * Nothing else, and in particular no time or random value, goes into it.
 *
 * <p>All methods are thread-safe and refuse bad input with an {@link InvalidArgumentsException} that
 * names the offending argument, or an {@link IllegalArgumentException} for a blank tool or run id.
 */
public final class IdempotencyKeys {

	/**
	 * How deep arguments may nest objects and arrays: a member of the arguments object is at depth 1. Deeper
	 * arguments, and cyclic object graphs, are refused with the path where the limit was passed.
	 */
	public static final int MAX_DEPTH = 64;

	/**
	 * How many bytes a tool call's arguments may take, as the JSON the ledger stores (UTF-8), unless
	 * configured otherwise: 1 MiB. Larger arguments are refused before anything is claimed.
	 */
	public static final long DEFAULT_MAX_ARGUMENTS_BYTES = 1024 * 1024;

	/** Each tool method's argument names, read by reflection once; held softly, so classes can unload. */
	private static final Map<Method, String[]> ARGUMENT_NAMES = new ConcurrentReferenceHashMap<>();

	private IdempotencyKeys() {
	}

	/**
	 * Derives the key of a tool call whose arguments arrive as JSON text, as a model sends them. Numbers
	 * keep the exact value of their text: {@code 9007199254740993} is never rounded.
	 * @param tool the tool's stable name, used exactly as given
	 * @param argumentsJson a JSON object of parameter name to value
	 * @param runId the id of the run, used exactly as given
	 */
	public static IdempotencyKey derive(String tool, String argumentsJson, String runId) {
		return hash(canonicalJson(tool, argumentsJson, runId, KeyArguments.all()));
	}

	/**
	 * As {@link #derive(String, String, String)}, over the arguments a tool chose to key on.
	 * @param keyArguments which arguments make up the key
	 */
	public static IdempotencyKey derive(String tool, String argumentsJson, String runId, KeyArguments keyArguments) {
		return hash(canonicalJson(tool, argumentsJson, runId, keyArguments));
	}

	/**
	 * Derives the key of a tool call whose arguments are Java values by parameter name. Records and beans
	 * become JSON objects of their properties; {@code double} and {@code float} values become the shortest
	 * decimal that reads back as the same value; a {@code null} value is the same as an absent one.
	 * @param tool the tool's stable name, used exactly as given
	 * @param arguments parameter name to value
	 * @param runId the id of the run, used exactly as given
	 */
	public static IdempotencyKey derive(String tool, Map<String, ?> arguments, String runId) {
		return hash(canonicalJson(tool, arguments, runId, KeyArguments.all()));
	}

	/**
	 * As {@link #derive(String, Map, String)}, over the arguments a tool chose to key on.
	 * @param keyArguments which arguments make up the key
	 */
	public static IdempotencyKey derive(String tool, Map<String, ?> arguments, String runId,
			KeyArguments keyArguments) {
		return hash(canonicalJson(tool, arguments, runId, keyArguments));
	}

	/**
	 * Derives the key of an invocation of a tool method: each parameter is an argument named by the
	 * parameter's name, except parameters that carry context rather than intent
	 * ({@linkplain #isContextParameter framework-injected context}). The method must be compiled with
	 * {@code -parameters}.
	 * @param tool the tool's stable name, used exactly as given
	 * @param method the invoked method
	 * @param args the invocation's arguments, one per parameter
	 * @param runId the id of the run, used exactly as given
	 * @throws IllegalArgumentException if parameter names were not compiled in, or the arguments do not
	 * match the method's parameters
	 */
	public static IdempotencyKey derive(String tool, Method method, Object[] args, String runId) {
		return derive(tool, argumentsOf(method, args), runId);
	}

	/**
	 * Prepares an invocation of a tool method to be claimed: derives its key, as
	 * {@link #derive(String, Method, Object[], String)} does, and writes its arguments as the tool received
	 * them, as JSON, for the ledger to store (after redaction). Beyond what the key refuses, arguments that
	 * hold the character U+0000 are refused here, on every database alike, because PostgreSQL's JSON types
	 * cannot store it.
	 * @throws InvalidArgumentsException naming the offending argument
	 * @throws IllegalArgumentException if parameter names were not compiled in, or the arguments do not
	 * match the method's parameters
	 */
	public static CanonicalCall canonicalise(String tool, Method method, Object[] args, String runId) {
		return canonicalise(tool, method, args, runId, DEFAULT_MAX_ARGUMENTS_BYTES);
	}

	/**
	 * As {@link #canonicalise(String, Method, Object[], String)}, with a limit of its own on the size of the
	 * arguments, as the JSON the ledger stores, in UTF-8 bytes.
	 * @throws InvalidArgumentsException naming the offending argument, or the arguments as a whole when they
	 * are larger than the limit
	 */
	public static CanonicalCall canonicalise(String tool, Method method, Object[] args, String runId,
			long maxArgumentsBytes) {
		return canonicalise(tool, method, args, runId, maxArgumentsBytes, KeyArguments.all());
	}

	/**
	 * As {@link #canonicalise(String, Method, Object[], String, long)}, its key over the arguments the tool
	 * chose to key on; every argument is stored.
	 */
	public static CanonicalCall canonicalise(String tool, Method method, Object[] args, String runId,
			long maxArgumentsBytes, KeyArguments keyArguments) {
		Canonicaliser canonicaliser = new Canonicaliser(requireText(tool, "tool"), true);
		requireText(runId, "runId");
		return canonicalise(canonicaliser, argumentsOf(method, args), runId, maxArgumentsBytes, keyArguments);
	}

	/**
	 * Prepares a call whose arguments are Java values by name to be claimed: derives its key, as
	 * {@link #derive(String, Map, String)} does, and writes its arguments as JSON for the ledger to store;
	 * refuses what {@link #canonicalise(String, Method, Object[], String, long)} refuses.
	 * @throws InvalidArgumentsException naming the offending argument, or the arguments as a whole when they
	 * are {@code null} or larger than the limit
	 */
	public static CanonicalCall canonicalise(String tool, Map<String, ?> arguments, String runId,
			long maxArgumentsBytes) {
		return canonicalise(tool, arguments, runId, maxArgumentsBytes, KeyArguments.all());
	}

	/**
	 * As {@link #canonicalise(String, Map, String, long)}, its key over the arguments the tool chose to key on;
	 * every argument is stored.
	 */
	public static CanonicalCall canonicalise(String tool, Map<String, ?> arguments, String runId,
			long maxArgumentsBytes, KeyArguments keyArguments) {
		Canonicaliser canonicaliser = new Canonicaliser(requireText(tool, "tool"), true);
		requireText(runId, "runId");
		if (arguments == null) {
			throw canonicaliser.refused(ArgumentPath.ROOT, "must be a map of parameter name to value, but are null",
					null);
		}
		return canonicalise(canonicaliser, arguments, runId, maxArgumentsBytes, keyArguments);
	}

	/**
	 * Prepares a call whose arguments are JSON text, as a model sends them, to be claimed: derives its key, as
	 * {@link #derive(String, String, String)} does (numbers keep the exact value of their text), and writes
	 * its arguments for the ledger to store; refuses what
	 * {@link #canonicalise(String, Method, Object[], String, long)} refuses.
	 * @throws InvalidArgumentsException naming the offending argument, or the arguments as a whole when they
	 * are not a JSON object or larger than the limit
	 */
	public static CanonicalCall canonicalise(String tool, String argumentsJson, String runId,
			long maxArgumentsBytes) {
		return canonicalise(tool, argumentsJson, runId, maxArgumentsBytes, KeyArguments.all());
	}

	/**
	 * As {@link #canonicalise(String, String, String, long)}, its key over the arguments the tool chose to key
	 * on; every argument is stored.
	 */
	public static CanonicalCall canonicalise(String tool, String argumentsJson, String runId,
			long maxArgumentsBytes, KeyArguments keyArguments) {
		Canonicaliser canonicaliser = new Canonicaliser(requireText(tool, "tool"), true);
		requireText(runId, "runId");
		if (argumentsJson == null) {
			throw canonicaliser.refused(ArgumentPath.ROOT, "must be a JSON object, but are null", null);
		}
		return canonicalise(canonicaliser, ArgumentsMapper.readJson(argumentsJson, canonicaliser), runId,
				maxArgumentsBytes, keyArguments);
	}

	/**
	 * Arguments that are Java values by name: {@linkplain PlainArguments plain} ones, as most are, written as
	 * they are; any others through their JSON tree. Both give the same key and text, and refuse alike.
	 */
	private static CanonicalCall canonicalise(Canonicaliser canonicaliser, Map<String, ?> arguments, String runId,
			long maxArgumentsBytes, KeyArguments keyArguments) {
		PlainArguments plain = Objects.requireNonNull(keyArguments, "keyArguments").isAll()
				? PlainArguments.of(arguments) : null;
		if (plain != null) {
			return prepared(canonicaliser, canonicaliser.envelope(plain, runId), ArgumentsMapper.write(plain),
					maxArgumentsBytes);
		}
		return canonicalise(canonicaliser, ArgumentsMapper.valueToTree(arguments, canonicaliser), runId,
				maxArgumentsBytes, keyArguments);
	}

	private static CanonicalCall canonicalise(Canonicaliser canonicaliser, JsonNode arguments, String runId,
			long maxArgumentsBytes, KeyArguments keyArguments) {
		// The canonical form first: it refuses what is too deep, by path, before anything is written. Every
		// argument is checked so, the ones left out of the key too: every one is stored.
		String canonical = canonicaliser.envelope(arguments, runId);
		if (!Objects.requireNonNull(keyArguments, "keyArguments").isAll()) {
			canonical = canonicaliser.envelope(keyArguments.select(arguments), runId);
		}
		return prepared(canonicaliser, canonical, ArgumentsMapper.write(arguments), maxArgumentsBytes);
	}

	/** The call's key, of its canonical text, and its arguments to store, refused where they are too large. */
	private static CanonicalCall prepared(Canonicaliser canonicaliser, String canonical, String stored,
			long maxArgumentsBytes) {
		long size = utf8Length(stored);
		if (size > maxArgumentsBytes) {
			throw canonicaliser.refused(ArgumentPath.ROOT, "take " + size + " bytes as JSON, more than the "
					+ maxArgumentsBytes + " allowed", null);
		}
		return new CanonicalCall(hash(canonical), stored);
	}

	/**
	 * The UTF-8 length of the text, counted without encoding it (a surrogate pair is four bytes): how the
	 * library measures the arguments and results it stores against their limits.
	 */
	public static long utf8Length(String text) {
		long bytes = 0;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			bytes += (c < 0x80) ? 1 : (c < 0x800 || Character.isSurrogate(c)) ? 2 : 3;
		}
		return bytes;
	}

	/**
	 * The JSON mapper that reads stored arguments back into parameter values: configured as the library's own
	 * mapper that wrote them, so that the application's JSON settings (naming strategy, inclusion) never
	 * change what a reconcile method receives, and reading every number exactly ({@code BigDecimal} for
	 * decimals, never through {@code double}).
	 */
	public static JsonMapper argumentsMapper() {
		return ArgumentsMapper.storedArgumentsMapper();
	}

	/**
	 * Whether a parameter of this type carries context rather than intent (Spring AI's {@code ToolContext},
	 * the MCP request, exchange, request context and {@code _meta}), and so is never an argument of a key.
	 */
	public static boolean isContextType(Class<?> type) {
		return ContextParameters.isContextType(type);
	}

	/**
	 * Whether a tool method's parameter is injected by a framework with the request's context rather than
	 * the model's intent, and so is never an argument of a key: one of the {@linkplain #isContextType context
	 * types}, or a parameter annotated {@code @McpProgressToken}.
	 */
	public static boolean isContextParameter(Parameter parameter) {
		return ContextParameters.isContext(parameter);
	}

	/** The arguments of an invocation by parameter name, without context parameters, in declaration order. */
	static Map<String, Object> argumentsOf(Method method, Object[] args) {
		Objects.requireNonNull(method, "method");
		String[] names = ARGUMENT_NAMES.computeIfAbsent(method, IdempotencyKeys::argumentNames);
		int given = (args != null) ? args.length : 0;
		if (given != names.length) {
			throw new IllegalArgumentException("Method " + method.toGenericString() + " takes " + names.length
					+ " arguments, but " + given + " were given");
		}
		Map<String, Object> arguments = new LinkedHashMap<>();
		for (int i = 0; i < names.length; i++) {
			if (names[i] != null) {
				arguments.put(names[i], args[i]);
			}
		}
		return arguments;
	}

	/** The argument name of each parameter, {@code null} for a context parameter: read once per method. */
	private static String[] argumentNames(Method method) {
		Parameter[] parameters = method.getParameters();
		String[] names = new String[parameters.length];
		for (int i = 0; i < parameters.length; i++) {
			Parameter parameter = parameters[i];
			if (ContextParameters.isContext(parameter)) {
				continue;
			}
			if (!parameter.isNamePresent()) {
				throw new IllegalArgumentException("Parameter names of " + method.toGenericString()
						+ " are not available: compile with -parameters (maven-compiler-plugin <parameters>true</parameters>,"
						+ " Gradle options.compilerArgs << '-parameters'), because keys are derived by parameter name");
			}
			names[i] = parameter.getName();
		}
		return names;
	}

	/** The canonical envelope of a call whose arguments are JSON text: what {@link #derive} hashes. */
	static String canonicalJson(String tool, String argumentsJson, String runId) {
		return canonicalJson(tool, argumentsJson, runId, KeyArguments.all());
	}

	/** As {@link #canonicalJson(String, String, String)}, over the arguments a tool chose to key on. */
	static String canonicalJson(String tool, String argumentsJson, String runId, KeyArguments keyArguments) {
		Canonicaliser canonicaliser = new Canonicaliser(requireText(tool, "tool"));
		requireText(runId, "runId");
		if (argumentsJson == null) {
			throw canonicaliser.refused(ArgumentPath.ROOT, "must be a JSON object, but are null", null);
		}
		return canonicaliser.envelope(Objects.requireNonNull(keyArguments, "keyArguments")
			.select(ArgumentsMapper.readJson(argumentsJson, canonicaliser)), runId);
	}

	/** The canonical envelope of a call whose arguments are Java values: what {@link #derive} hashes. */
	static String canonicalJson(String tool, Map<String, ?> arguments, String runId) {
		return canonicalJson(tool, arguments, runId, KeyArguments.all());
	}

	/** As {@link #canonicalJson(String, Map, String)}, over the arguments a tool chose to key on. */
	static String canonicalJson(String tool, Map<String, ?> arguments, String runId, KeyArguments keyArguments) {
		Canonicaliser canonicaliser = new Canonicaliser(requireText(tool, "tool"));
		requireText(runId, "runId");
		if (arguments == null) {
			throw canonicaliser.refused(ArgumentPath.ROOT, "must be a map of parameter name to value, but are null",
					null);
		}
		return canonicaliser.envelope(Objects.requireNonNull(keyArguments, "keyArguments")
			.select(ArgumentsMapper.valueToTree(arguments, canonicaliser)), runId);
	}

	private static IdempotencyKey hash(String canonicalJson) {
		return new IdempotencyKey(Sha256.hex(canonicalJson.getBytes(StandardCharsets.UTF_8)));
	}

	private static String requireText(String value, String name) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank, but was "
					+ (value == null ? "null" : "'" + value + "'"));
		}
		return value;
	}

}
