package io.idempotency.key;

import java.io.Writer;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.cfg.DateTimeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

/**
 * Turns arguments into a JSON tree with a mapper of the library's own, configured once, so that the
 * application's JSON settings (naming strategy, inclusion, date formats) never change a key.
 */
final class ArgumentsMapper {

	/** Longer number literals are refused before they are parsed; the plain-form limit applies after. */
	private static final int MAX_NUMBER_LITERAL = 10 * CanonicalNumbers.MAX_DIGITS;

	private static final String TOO_DEEP = "is nested deeper than the " + IdempotencyKeys.MAX_DEPTH + " levels allowed";

	// Buffers recycled per thread: Jackson's default pool is one queue that every caller's thread takes from and
	// gives back to, and contends on under concurrency.
	private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
		.recyclerPool(JsonRecyclerPools.threadLocalPool())
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNumberLength(MAX_NUMBER_LITERAL)
			.maxNestingDepth(IdempotencyKeys.MAX_DEPTH + 1)
			.maxStringLength(20_000_000)
			.build())
		.streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(IdempotencyKeys.MAX_DEPTH + 1).build())
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.build())
		.annotationIntrospector(new ArgumentsIntrospector())
		.enable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
		.disable(DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS)
		.build();

	/** Reads number text as its exact decimal value, never through {@code double}. */
	private static final ObjectReader EXACT_READER = MAPPER.reader()
		.with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

	/**
	 * Reads stored arguments back: numbers keep the exact value of their text ({@code 0.123456789012345678}
	 * stays a {@code BigDecimal} of that value), as the key did.
	 */
	private static final JsonMapper STORED_MAPPER = MAPPER.rebuild()
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.build();

	private ArgumentsMapper() {
	}

	static JsonNode readJson(String json, Canonicaliser canonicaliser) {
		JsonParser parser = EXACT_READER.createParser(json);
		try (parser) {
			JsonNode arguments = EXACT_READER.readTree(parser);
			if (arguments != null && parser.nextToken() != null) {
				throw canonicaliser.refused(ArgumentPath.ROOT,
						"are not valid JSON: more content follows the arguments object", null);
			}
			return (arguments != null) ? arguments : MissingNode.getInstance();
		}
		catch (StreamConstraintsException ex) {
			ArgumentPath path = ArgumentPath.of(parser.streamReadContext());
			if (String.valueOf(ex.getOriginalMessage()).contains("nesting depth")) {
				throw canonicaliser.refused(path, TOO_DEEP, ex);
			}
			throw canonicaliser.refused(path, notValid(path) + ex.getOriginalMessage(), ex);
		}
		catch (JacksonException ex) {
			ArgumentPath path = ArgumentPath.of(parser.streamReadContext());
			throw canonicaliser.refused(path, notValid(path) + ex.getOriginalMessage(), ex);
		}
	}

	static JsonNode valueToTree(Object arguments, Canonicaliser canonicaliser) {
		try {
			return MAPPER.valueToTree(arguments);
		}
		catch (JacksonException ex) {
			throw canonicaliser.refused(ArgumentPath.of(ex.getPath()),
					"cannot be written as JSON: " + ex.getOriginalMessage(), ex);
		}
		catch (StackOverflowError ex) {
			// Jackson builds trees without a depth limit: a cycle recurses until the stack runs out and unwinds
			// cleanly to here. Writing as text does count depth, and tells where the limit was passed.
			throw canonicaliser.refused(whereTooDeep(arguments), TOO_DEEP + " (is the object graph cyclic?)", null);
		}
	}

	private static ArgumentPath whereTooDeep(Object arguments) {
		try {
			MAPPER.writeValueAsString(arguments);
		}
		catch (StreamConstraintsException ex) {
			return ArgumentPath.of(ex.getPath());
		}
		catch (JacksonException | StackOverflowError ex) {
			// fall through: the root is all that can be said
		}
		return ArgumentPath.ROOT;
	}

	/** Arguments as JSON text, as the tool received them; at most {@link IdempotencyKeys#MAX_DEPTH} deep. */
	static String write(JsonNode arguments) {
		return MAPPER.writeValueAsString(arguments);
	}

	/** Plain arguments as JSON text, written from the values themselves: what {@link #write(JsonNode)} writes for their tree. */
	static String write(PlainArguments arguments) {
		TextWriter text = new TextWriter();
		try (JsonGenerator json = MAPPER.createGenerator(text)) {
			json.writeStartObject();
			for (int i = 0; i < arguments.size(); i++) {
				json.writeName(arguments.name(i));
				Object value = arguments.value(i);
				if (value == null) {
					json.writeNull();
				}
				else if (value instanceof String string) {
					json.writeString(string);
				}
				else if (value instanceof Integer number) {
					json.writeNumber(number.intValue());
				}
				else if (value instanceof Long number) {
					json.writeNumber(number.longValue());
				}
				else if (value instanceof Double number) {
					json.writeNumber(number.doubleValue());
				}
				else {
					json.writeBoolean((Boolean) value);
				}
			}
			json.writeEndObject();
		}
		return text.toString();
	}

	static JsonMapper storedArgumentsMapper() {
		return STORED_MAPPER;
	}

	private static String notValid(ArgumentPath path) {
		return ((path == ArgumentPath.ROOT) ? "are" : "is") + " not valid JSON: ";
	}

	/** Text written on one thread: a {@code StringWriter} without its lock. */
	private static final class TextWriter extends Writer {

		private final StringBuilder text = new StringBuilder(128);

		@Override
		public void write(char[] chars, int offset, int length) {
			this.text.append(chars, offset, length);
		}

		@Override
		public void write(String string, int offset, int length) {
			this.text.append(string, offset, offset + length);
		}

		@Override
		public void write(int c) {
			this.text.append((char) c);
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

		@Override
		public String toString() {
			return this.text.toString();
		}

	}

}
