package io.idempotency.key;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import tools.jackson.core.Base64Variants;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.POJONode;

/**
 * Writes arguments in canonical JSON (key specification version 1, steps 1 and 3), from their tree or, for
 * {@linkplain PlainArguments plain} ones, from their values: null members dropped, members ordered by name in
 * UTF-16 code units, strings trimmed and in NFC, numbers plain, no white space.
 */
final class Canonicaliser {

	private static final String UNSTORABLE = "contains the character U+0000, which the ledger cannot store";

	private final String tool;

	private final boolean forStorage;

	Canonicaliser(String tool) {
		this(tool, false);
	}

	/**
	 * @param forStorage whether the arguments are also to be stored: then U+0000, which PostgreSQL's JSON
	 * cannot hold, is refused in names and strings, on every database alike
	 */
	Canonicaliser(String tool, boolean forStorage) {
		this.tool = tool;
		this.forStorage = forStorage;
	}

	/** The canonical envelope {@code {"arguments":A,"runId":R,"tool":T}}. */
	String envelope(JsonNode arguments, String runId) {
		if (!arguments.isObject()) {
			throw refused(ArgumentPath.ROOT, "must be a JSON object, but are " + describe(arguments), null);
		}
		StringBuilder out = new StringBuilder(128);
		out.append("{\"arguments\":");
		write(arguments, ArgumentPath.ROOT, out);
		return endEnvelope(out, runId);
	}

	/**
	 * The canonical envelope of plain arguments, written from the values themselves: the text
	 * {@link #envelope(JsonNode, String)} writes for their tree, refused where that refuses.
	 */
	String envelope(PlainArguments arguments, String runId) {
		List<Integer> byName = new ArrayList<>(arguments.size());
		for (int i = 0; i < arguments.size(); i++) {
			if (arguments.value(i) != null) {
				byName.add(i);
			}
			else {
				requireStorableName(arguments.name(i), ArgumentPath.ROOT);
			}
		}
		byName.sort(Comparator.comparing(arguments::name));
		StringBuilder out = new StringBuilder(128);
		out.append("{\"arguments\":{");
		for (int i = 0; i < byName.size(); i++) {
			String name = arguments.name(byName.get(i));
			if (i > 0) {
				out.append(',');
			}
			writeMemberName(name, ArgumentPath.ROOT, out);
			out.append(':');
			writePlain(arguments.value(byName.get(i)), name, out);
		}
		out.append('}');
		return endEnvelope(out, runId);
	}

	private void writePlain(Object value, String name, StringBuilder out) {
		try {
			if (value instanceof String text) {
				if (this.forStorage && text.indexOf('\u0000') >= 0) {
					throw refused(ArgumentPath.ROOT.member(name), UNSTORABLE, null);
				}
				CanonicalStrings.write(CanonicalStrings.normalise(text), out);
			}
			else if (value instanceof Double number) {
				out.append(CanonicalNumbers.plain(number.doubleValue()));
			}
			else if (value instanceof Number number) {
				out.append(number.longValue());
			}
			else {
				out.append(((Boolean) value).booleanValue());
			}
		}
		catch (IllegalArgumentException ex) {
			if (ex instanceof InvalidArgumentsException) {
				throw ex;
			}
			throw refused(ArgumentPath.ROOT.member(name), ex.getMessage(), null);
		}
	}

	private String endEnvelope(StringBuilder out, String runId) {
		out.append(",\"runId\":");
		writeName(runId, "runId", out);
		out.append(",\"tool\":");
		writeName(this.tool, "tool", out);
		out.append('}');
		return out.toString();
	}

	private static void writeName(String value, String what, StringBuilder out) {
		try {
			CanonicalStrings.write(value, out);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(what + " '" + value + "' " + ex.getMessage(), ex);
		}
	}

	private void write(JsonNode node, ArgumentPath path, StringBuilder out) {
		if (path.depth() > IdempotencyKeys.MAX_DEPTH && node.isContainer()) {
			throw refused(path, "is nested deeper than the " + IdempotencyKeys.MAX_DEPTH + " levels allowed", null);
		}
		if (this.forStorage && node.isString() && node.stringValue().indexOf('\u0000') >= 0) {
			throw refused(path, UNSTORABLE, null);
		}
		try {
			switch (node.getNodeType()) {
				case OBJECT -> writeObject(node, path, out);
				case ARRAY -> writeArray(node, path, out);
				case STRING -> CanonicalStrings.write(CanonicalStrings.normalise(node.stringValue()), out);
				case NUMBER -> out.append(plainNumber(node));
				case BOOLEAN -> out.append(node.booleanValue());
				case NULL, MISSING -> out.append("null");
				case BINARY -> CanonicalStrings.write(Base64Variants.getDefaultVariant().encode(node.binaryValue()), out);
				case POJO -> writeEmbedded(((POJONode) node).getPojo(), out);
			}
		}
		catch (IllegalArgumentException ex) {
			if (ex instanceof InvalidArgumentsException) {
				throw ex;
			}
			throw refused(path, ex.getMessage(), null);
		}
	}

	/** A member whose value is null is the same intent as an absent member. */
	private static boolean isAbsent(JsonNode value) {
		return value.isNull() || value.isMissingNode() || (value.isPojo() && ((POJONode) value).getPojo() == null);
	}

	/** Jackson embeds some values in a tree as they are: binary data as {@code byte[]}. */
	private static void writeEmbedded(Object value, StringBuilder out) {
		if (value == null) {
			out.append("null");
		}
		else if (value instanceof byte[] bytes) {
			CanonicalStrings.write(Base64Variants.getDefaultVariant().encode(bytes), out);
		}
		else {
			throw new IllegalArgumentException(
					"is a value of type " + value.getClass().getName() + ", which cannot be written as JSON");
		}
	}

	private void writeObject(JsonNode node, ArgumentPath path, StringBuilder out) {
		List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.size());
		for (Map.Entry<String, JsonNode> member : node.properties()) {
			if (!isAbsent(member.getValue())) {
				members.add(member);
			}
			else {
				requireStorableName(member.getKey(), path);
			}
		}
		members.sort(Map.Entry.comparingByKey());
		out.append('{');
		for (int i = 0; i < members.size(); i++) {
			Map.Entry<String, JsonNode> member = members.get(i);
			if (i > 0) {
				out.append(',');
			}
			writeMemberName(member.getKey(), path, out);
			out.append(':');
			write(member.getValue(), path.member(member.getKey()), out);
		}
		out.append('}');
	}

	/**
	 * A member left out of the canonical form (its value is null) is still stored, by its name: refused where
	 * the name holds U+0000 or a lone surrogate, which the ledger cannot store, as a member written is.
	 */
	private void requireStorableName(String name, ArgumentPath object) {
		if (this.forStorage) {
			writeMemberName(name, object, new StringBuilder(name.length() + 2));
		}
	}

	/** A member's name as written, refused where it holds U+0000 (for storage) or a lone surrogate. */
	private void writeMemberName(String name, ArgumentPath object, StringBuilder out) {
		if (this.forStorage && name.indexOf('\u0000') >= 0) {
			throw refused(object.member(name), "has a name that " + UNSTORABLE, null);
		}
		try {
			CanonicalStrings.write(name, out);
		}
		catch (IllegalArgumentException ex) {
			throw refused(object.member(name), "has a name that " + ex.getMessage(), null);
		}
	}

	private void writeArray(JsonNode node, ArgumentPath path, StringBuilder out) {
		out.append('[');
		for (int i = 0; i < node.size(); i++) {
			if (i > 0) {
				out.append(',');
			}
			write(node.get(i), path.element(i), out);
		}
		out.append(']');
	}

	private static String plainNumber(JsonNode node) {
		return switch (node.numberType()) {
			case INT, LONG -> Long.toString(node.longValue());
			case BIG_INTEGER -> CanonicalNumbers.plain(node.bigIntegerValue());
			case BIG_DECIMAL -> CanonicalNumbers.plain(node.decimalValue());
			case DOUBLE -> CanonicalNumbers.plain(node.doubleValue());
			case FLOAT -> CanonicalNumbers.plain(node.floatValue());
		};
	}

	InvalidArgumentsException refused(ArgumentPath path, String problem, Throwable cause) {
		return new InvalidArgumentsException(this.tool, path.toString(), problem, cause);
	}

	private static String describe(JsonNode node) {
		return switch (node.getNodeType()) {
			case ARRAY -> "an array";
			case STRING -> "a string";
			case NUMBER -> "a number";
			case BOOLEAN -> "a boolean";
			case NULL -> "null";
			case MISSING -> "empty";
			default -> "not an object";
		};
	}

}
