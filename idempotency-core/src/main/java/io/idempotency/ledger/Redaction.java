package io.idempotency.ledger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.io.JsonStringEncoder;

/**
 * Removes secrets from arguments before they are stored. A member is redacted, at any depth, when its
 * whole name is one of the sensitive names, compared without case, underscores or hyphens:
 * {@code accessToken} redacts {@code accessToken}, {@code access_token} and {@code ACCESS-TOKEN}, but not
 * {@code accessTokenCount}; {@code secret} does not redact {@code secretaryName}. Its whole value becomes
 * {@value #REDACTED}.
 *
 * <p>{@linkplain #defaults() By default}, and with {@link #likelyCredentialsAnd(Collection)}, a name that is
 * likely a credential is redacted too, by Spring Boot's rule for sensitive keys: one that <em>ends with</em>
 * {@code password}, {@code secret}, {@code key} or {@code token}, or that <em>contains</em>
 * {@code credentials}, compared the same way ({@code githubToken}, {@code stripeApiKey}, {@code dbPassword},
 * {@code client_key}; not {@code secretaryName}, {@code maxTokens} or {@code keyword}).
 *
 * <p>A member sent as {@code null} is kept {@code null}: there is nothing to hide, and absent and {@code null}
 * are one intent, as in a key.
 *
 * <p>A value is looked for in text in each form it takes there: as it is, as a JSON string holds it (escaped:
 * {@code a"b} as {@code a\"b}), and as JSON text inside a JSON string holds it (escaped twice).
 *
 * <p>Redaction changes only what is stored: the idempotency key is derived over the full arguments.
 */
public final class Redaction {

	/** What a redacted value is replaced by. */
	public static final String REDACTED = "[REDACTED]";

	/** The names redacted unless configured otherwise. */
	public static final Set<String> DEFAULT_NAMES = Set.of("password", "passwd", "passphrase", "secret",
			"clientSecret", "token", "accessToken", "refreshToken", "idToken", "authToken", "bearerToken",
			"sessionToken", "apiKey", "accessKey", "secretKey", "privateKey", "authorization", "credential",
			"credentials", "cookie");

	/** Redacted values shorter than this are not scrubbed from error text: they would match too much. */
	public static final int MIN_SCRUBBED_LENGTH = 4;

	/**
	 * The endings of names that are likely credentials (Spring Boot's sanitizing rule for sensitive keys),
	 * compared without case, underscores or hyphens.
	 */
	public static final List<String> LIKELY_CREDENTIAL_ENDINGS = List.of("password", "secret", "key", "token");

	/** What a name that is likely a credential may hold anywhere in it. */
	public static final String LIKELY_CREDENTIAL_PART = "credentials";

	private final Names names;

	/** The configured names alone, without the likely-credential rule: what a result may not name. */
	private final Names listed;

	private Redaction(Collection<String> names, boolean likelyCredentials) {
		Set<String> exact = normalise(names);
		this.names = new Names(exact, likelyCredentials, true);
		this.listed = new Names(exact, false, true);
	}

	/**
	 * Redacts the {@linkplain #DEFAULT_NAMES default names} and every name that is likely a credential (see
	 * the class description).
	 */
	public static Redaction defaults() {
		return new Redaction(DEFAULT_NAMES, true);
	}

	/** Redacts every name that is likely a credential (see the class description), and the given names. */
	public static Redaction likelyCredentialsAnd(Collection<String> names) {
		return new Redaction(names, true);
	}

	/** Redacts exactly the given names. */
	public static Redaction of(Collection<String> names) {
		return new Redaction(names, false);
	}

	/** Redacts nothing beyond what each call marks sensitive. */
	public static Redaction none() {
		return new Redaction(List.of(), false);
	}

	/**
	 * Normalised names redacted whole, whether names that are likely credentials are redacted too, and, for the
	 * configured set, the answers given so far: a ledger meets the same few names (its tools' parameters and
	 * results' members) on every call.
	 */
	private static final class Names {

		/** How many names' answers a configured set keeps, at most; further names are decided each time. */
		private static final int REMEMBERED_NAMES = 1024;

		/** The longest name whose answer is kept: a model may send any text as a name. */
		private static final int REMEMBERED_LENGTH = 64;

		private final Set<String> exact;

		private final boolean likelyCredentials;

		/** Each name's answer, by the name as it was given; {@code null} for a call's own set, kept by nothing. */
		private final Map<String, Boolean> answers;

		private Names(Set<String> exact, boolean likelyCredentials, boolean remembering) {
			this.exact = exact;
			this.likelyCredentials = likelyCredentials;
			this.answers = remembering ? new ConcurrentHashMap<>() : null;
		}

		boolean isEmpty() {
			return this.exact.isEmpty() && !this.likelyCredentials;
		}

		boolean matches(String name) {
			if (this.answers == null || name.length() > REMEMBERED_LENGTH) {
				return decide(name);
			}
			Boolean known = this.answers.get(name);
			if (known != null) {
				return known;
			}
			boolean answer = decide(name);
			if (this.answers.size() < REMEMBERED_NAMES) {
				this.answers.put(name, answer);
			}
			return answer;
		}

		private boolean decide(String name) {
			String normalised = normalise(name);
			if (this.exact.contains(normalised)) {
				return true;
			}
			if (!this.likelyCredentials) {
				return false;
			}
			for (String ending : LIKELY_CREDENTIAL_ENDINGS) {
				if (normalised.endsWith(ending)) {
					return true;
				}
			}
			return normalised.contains(LIKELY_CREDENTIAL_PART);
		}

		/** These names and the ones a call marks sensitive. */
		Names with(Set<String> sensitiveNames) {
			if (sensitiveNames.isEmpty()) {
				return this;
			}
			Set<String> names = new HashSet<>(this.exact);
			names.addAll(normalise(sensitiveNames));
			return new Names(names, this.likelyCredentials, false);
		}

	}

	/**
	 * The arguments with every sensitive member's value replaced.
	 * @param argumentsJson a JSON object
	 * @param sensitiveNames names to redact in this call, in addition to the configured ones
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	public String redact(String argumentsJson, Set<String> sensitiveNames) {
		Names names = this.names.with(sensitiveNames);
		// Checked as JSON even when nothing is to be redacted: nothing that is not JSON reaches the table.
		if (!RedactionWalk.namesAny(argumentsJson, names::matches)) {
			return argumentsJson;
		}
		return RedactionWalk.redacted(argumentsJson, names::matches);
	}

	/**
	 * Whether a JSON value (an object, an array, anything) has, at any depth, a member whose name this
	 * redaction removes, or one of the names the call marks sensitive: a result that holds a secret. A string
	 * that is itself JSON text (an object or an array, as a tool that returns another service's answer as text
	 * has it) is read as JSON too, and JSON text inside it, up to eight texts deep.
	 * @throws IllegalArgumentException if the text is not valid JSON
	 */
	public boolean namesASecret(String json, Set<String> sensitiveNames) {
		return RedactionWalk.namesAnyInText(json, this.names.with(sensitiveNames)::matches);
	}

	/**
	 * Whether a JSON value has, at any depth, a member whose whole name is one of the listed names (the
	 * configured ones, or the call's sensitive ones), leaving out the likely-credential rule: for results,
	 * whose members such as an issue's {@code key} or a page's {@code nextPageToken} are what a repeat needs. A
	 * string that is itself JSON text (an object or an array) is read as JSON too, and JSON text inside it, up
	 * to eight texts deep.
	 * @throws IllegalArgumentException if the text is not valid JSON
	 */
	public boolean namesAListedSecret(String json, Set<String> sensitiveNames) {
		return RedactionWalk.namesAnyInText(json, this.listed.with(sensitiveNames)::matches);
	}

	/**
	 * Whether a JSON value quotes a value that redaction removes from these arguments (of
	 * {@value #MIN_SCRUBBED_LENGTH} characters or more), in any form it takes there (see the class
	 * description): in the JSON text, in any of its strings and member names, and in JSON text inside one of
	 * them, up to eight texts deep. For a result, which is never stored when it does.
	 * @param json a JSON value
	 * @param argumentsJson the call's arguments, a JSON object
	 * @param sensitiveNames names the call marks sensitive, in addition to the configured ones
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	public boolean quotesARedactedValue(String json, String argumentsJson, Set<String> sensitiveNames) {
		List<String> forms = redactedForms(argumentsJson, this.names.with(sensitiveNames));
		return !forms.isEmpty() && RedactionWalk.quotes(json, forms);
	}

	/** Whether a member of this name is redacted (with no names marked sensitive by the call). */
	public boolean redacts(String name) {
		return this.names.matches(name);
	}

	/**
	 * The text with every value that redaction removes from these arguments replaced by {@value #REDACTED}:
	 * for error text that may quote an argument, such as an exception message with a URL that carries an API
	 * key, or one that quotes a request's JSON body, where the value is escaped. Each value is replaced in
	 * every form it takes in text (see the class description). Values shorter than
	 * {@value #MIN_SCRUBBED_LENGTH} characters are left, as they would match too much.
	 * @param text the text to scrub, or {@code null}
	 * @param argumentsJson the call's arguments, a JSON object
	 * @param sensitiveNames names the call marks sensitive, in addition to the configured ones
	 */
	public String scrub(String text, String argumentsJson, Set<String> sensitiveNames) {
		if (text == null || text.isEmpty()) {
			return text;
		}
		String scrubbed = text;
		for (String form : redactedForms(argumentsJson, this.names.with(sensitiveNames))) {
			scrubbed = scrubbed.replace(form, REDACTED);
		}
		return scrubbed;
	}

	/**
	 * The forms in text of every value redaction removes from the arguments that is long enough to be worth
	 * scrubbing, longest first, so that a replacement never leaves part of a longer form behind.
	 */
	private static List<String> redactedForms(String argumentsJson, Names names) {
		if (names.isEmpty() || !RedactionWalk.namesAny(argumentsJson, names::matches)) {
			return List.of();
		}
		Set<String> forms = new HashSet<>();
		for (String value : RedactionWalk.redactedValues(argumentsJson, names::matches)) {
			if (value.length() < MIN_SCRUBBED_LENGTH) {
				continue;
			}
			String escaped = escaped(value);
			forms.add(value);
			forms.add(escaped);
			forms.add(escaped.replace("/", "\\/"));
			forms.add(escaped(escaped));
		}
		List<String> longestFirst = new ArrayList<>(forms);
		longestFirst.sort(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()));
		return longestFirst;
	}

	/** The text as a JSON string holds it, without its quotes. */
	private static String escaped(String text) {
		StringBuilder escaped = new StringBuilder(text.length() + 8);
		JsonStringEncoder.getInstance().quoteAsString(text, escaped);
		return escaped.toString();
	}

	private static Set<String> normalise(Collection<String> names) {
		Set<String> normalised = new HashSet<>();
		for (String name : names) {
			String n = normalise(name);
			if (!n.isEmpty()) {
				normalised.add(n);
			}
		}
		return Set.copyOf(normalised);
	}

	private static String normalise(String name) {
		return name.replace("_", "").replace("-", "").toLowerCase(Locale.ROOT);
	}

}
