package io.idempotency.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Walks JSON for {@link Redaction}: finds the members whose names it calls sensitive, replaces their values with
 * {@value Redaction#REDACTED}, and looks for text in a JSON value's strings and in the JSON text inside them. Which
 * names are sensitive, and which text to look for, the redaction says.
 */
final class RedactionWalk {

	/** How many texts deep JSON text inside a string of a result is read: deeper text is not looked into. */
	private static final int MAX_TEXT_DEPTH = 8;

	/** Its buffers recycled per thread, not through one queue that every caller's thread contends on. */
	private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.recyclerPool(JsonRecyclerPools.threadLocalPool())
		.build())
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.build();

	private RedactionWalk() {
	}

	/**
	 * Whether a member of the JSON value has a sensitive name, read as a stream of tokens: the arguments are
	 * checked as JSON without building a tree, and copied into one only when something is to be redacted.
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	static boolean namesAny(String argumentsJson, Predicate<String> sensitive) {
		try (JsonParser parser = MAPPER.createParser(argumentsJson)) {
			int depth = 0;
			do {
				JsonToken token = parser.nextToken();
				if (token == null) {
					throw new IllegalArgumentException("The arguments to store are not valid JSON: they end early");
				}
				if (token == JsonToken.PROPERTY_NAME && sensitive.test(parser.currentName())) {
					return true;
				}
				if (token.isStructStart()) {
					depth++;
				}
				else if (token.isStructEnd()) {
					depth--;
				}
			}
			while (depth > 0);
			if (parser.nextToken() != null) {
				throw new IllegalArgumentException("The arguments to store are not valid JSON: more follows the value");
			}
			return false;
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("The arguments to store are not valid JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	/**
	 * Whether a member of the JSON value has a sensitive name, or a member of JSON text in one of its strings
	 * does, up to {@value #MAX_TEXT_DEPTH} texts deep.
	 * @throws IllegalArgumentException if the text is not valid JSON
	 */
	static boolean namesAnyInText(String json, Predicate<String> sensitive) {
		return namesAnyInText(json, sensitive, 0);
	}

	/**
	 * A string is read as JSON only when it is JSON text, whole: text that merely begins as JSON (a JSON text cut
	 * short) is text.
	 */
	private static boolean namesAnyInText(String json, Predicate<String> sensitive, int depth) {
		boolean found = false;
		try (JsonParser parser = MAPPER.createParser(json)) {
			for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
				if (found) {
					// Inside a string, read to the end: only JSON text is read as JSON.
					continue;
				}
				if (token == JsonToken.PROPERTY_NAME) {
					found = sensitive.test(parser.currentName());
				}
				else if (token == JsonToken.VALUE_STRING && depth < MAX_TEXT_DEPTH) {
					String text = parser.getString();
					found = looksLikeJson(text) && namesAnyInText(text, sensitive, depth + 1);
				}
				if (found && depth == 0) {
					return true;
				}
			}
			return found;
		}
		catch (JacksonException ex) {
			if (depth == 0) {
				throw new IllegalArgumentException("The value to check is not valid JSON: " + ex.getOriginalMessage(), ex);
			}
			return false;
		}
	}

	/** Whether text begins as a JSON object or array would: only those have members. */
	private static boolean looksLikeJson(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (!Character.isWhitespace(c)) {
				return c == '{' || c == '[';
			}
		}
		return false;
	}

	/**
	 * Whether the JSON text holds one of the forms, in its text, in any of its strings and member names, or in
	 * JSON text inside one of them, up to {@value #MAX_TEXT_DEPTH} texts deep.
	 */
	static boolean quotes(String json, List<String> forms) {
		return quotes(json, true, forms, 0);
	}

	/** Whether the text holds one of the forms, or one of its strings does, where it is JSON. */
	private static boolean quotes(String text, boolean isJson, List<String> forms, int depth) {
		for (String form : forms) {
			if (text.contains(form)) {
				return true;
			}
		}
		if (depth >= MAX_TEXT_DEPTH || !(isJson || looksLikeJson(text))) {
			return false;
		}
		try (JsonParser parser = MAPPER.createParser(text)) {
			for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
				String string = (token == JsonToken.PROPERTY_NAME) ? parser.currentName()
						: (token == JsonToken.VALUE_STRING) ? parser.getString() : null;
				if (string != null && quotes(string, false, forms, depth + 1)) {
					return true;
				}
			}
			return false;
		}
		catch (JacksonException ex) {
			// Text that is not JSON: what it holds as it is was looked for above.
			return false;
		}
	}

	/**
	 * The arguments with the value of every member of a sensitive name, at any depth, replaced; the same text when
	 * nothing was.
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	static String redacted(String argumentsJson, Predicate<String> sensitive) {
		JsonNode tree = parse(argumentsJson);
		return redact(tree, sensitive, null) ? MAPPER.writeValueAsString(tree) : argumentsJson;
	}

	/**
	 * Every scalar value, as text, in the members of the arguments that {@link #redacted} replaces.
	 * @throws IllegalArgumentException if the arguments are not valid JSON
	 */
	static List<String> redactedValues(String argumentsJson, Predicate<String> sensitive) {
		List<String> values = new ArrayList<>();
		redact(parse(argumentsJson), sensitive, values);
		return values;
	}

	private static JsonNode parse(String argumentsJson) {
		try {
			return MAPPER.readTree(argumentsJson);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("The arguments to store are not valid JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	/** Redacts in place, collecting the removed scalar values where asked; whether anything was redacted. */
	private static boolean redact(JsonNode node, Predicate<String> sensitive, List<String> removed) {
		boolean changed = false;
		if (node instanceof ObjectNode object) {
			List<String> redacted = new ArrayList<>();
			for (Map.Entry<String, JsonNode> member : object.properties()) {
				if (sensitive.test(member.getKey())) {
					// A null holds nothing to hide: kept, so that it stays the same intent as an absent member.
					if (!member.getValue().isNull()) {
						redacted.add(member.getKey());
						collect(member.getValue(), removed);
					}
				}
				else {
					changed |= redact(member.getValue(), sensitive, removed);
				}
			}
			redacted.forEach((name) -> object.put(name, Redaction.REDACTED));
			changed |= !redacted.isEmpty();
		}
		else if (node.isArray()) {
			for (JsonNode element : node) {
				changed |= redact(element, sensitive, removed);
			}
		}
		return changed;
	}

	/** Every scalar value in a redacted member, as text. */
	private static void collect(JsonNode value, List<String> removed) {
		if (removed == null) {
			return;
		}
		if (value.isContainer()) {
			for (JsonNode element : value) {
				collect(element, removed);
			}
		}
		else if (!value.isNull()) {
			removed.add(value.isString() ? value.stringValue() : value.toString());
		}
	}

}
