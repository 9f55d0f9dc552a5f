package io.idempotency.ledger;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Removes secrets from arguments before they are stored. A member is redacted, at any depth, when its
 * name contains one of the sensitive names, compared without case, underscores or hyphens: {@code token}
 * redacts {@code token}, {@code accessToken} and {@code ACCESS_TOKEN}. Its whole value becomes
 * {@value #REDACTED}.
 *
 * <p>Redaction changes only what is stored: the idempotency key is derived over the full arguments.
 */
public final class Redaction {

	/** What a redacted value is replaced by. */
	public static final String REDACTED = "[REDACTED]";

	/** The names redacted unless configured otherwise. */
	public static final Set<String> DEFAULT_NAMES = Set.of("password", "passwd", "secret", "token", "apiKey",
			"authorization", "credential", "privateKey");

	private static final JsonMapper MAPPER = JsonMapper.builder()
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.build();

	private final List<String> names;

	private Redaction(Collection<String> names) {
		this.names = normalise(names);
	}

	/** Redacts the {@linkplain #DEFAULT_NAMES default names}. */
	public static Redaction defaults() {
		return new Redaction(DEFAULT_NAMES);
	}

	/** Redacts exactly the given names. */
	public static Redaction of(Collection<String> names) {
		return new Redaction(names);
	}

	/** Redacts nothing beyond what each call marks sensitive. */
	public static Redaction none() {
		return new Redaction(List.of());
	}

	/**
	 * The arguments with every sensitive member's value replaced.
	 * @param argumentsJson a JSON object
	 * @param sensitiveNames names to redact in this call, in addition to the configured ones
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	public String redact(String argumentsJson, Set<String> sensitiveNames) {
		List<String> terms = this.names;
		if (!sensitiveNames.isEmpty()) {
			terms = new ArrayList<>(this.names);
			terms.addAll(normalise(sensitiveNames));
		}
		if (terms.isEmpty()) {
			return argumentsJson;
		}
		JsonNode tree;
		try {
			tree = MAPPER.readTree(argumentsJson);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("The arguments to store are not valid JSON: " + ex.getOriginalMessage(), ex);
		}
		return redact(tree, terms) ? MAPPER.writeValueAsString(tree) : argumentsJson;
	}

	/** Redacts in place; whether anything was redacted. */
	private static boolean redact(JsonNode node, List<String> terms) {
		boolean changed = false;
		if (node instanceof ObjectNode object) {
			List<String> sensitive = new ArrayList<>();
			for (Map.Entry<String, JsonNode> member : object.properties()) {
				if (isSensitive(member.getKey(), terms)) {
					sensitive.add(member.getKey());
				}
				else {
					changed |= redact(member.getValue(), terms);
				}
			}
			sensitive.forEach((name) -> object.put(name, REDACTED));
			changed |= !sensitive.isEmpty();
		}
		else if (node.isArray()) {
			for (JsonNode element : node) {
				changed |= redact(element, terms);
			}
		}
		return changed;
	}

	private static boolean isSensitive(String name, List<String> terms) {
		String normalised = normalise(name);
		for (String term : terms) {
			if (normalised.contains(term)) {
				return true;
			}
		}
		return false;
	}

	private static List<String> normalise(Collection<String> names) {
		return names.stream().map(Redaction::normalise).filter((n) -> !n.isEmpty()).distinct().toList();
	}

	private static String normalise(String name) {
		return name.replace("_", "").replace("-", "").toLowerCase(Locale.ROOT);
	}

}
