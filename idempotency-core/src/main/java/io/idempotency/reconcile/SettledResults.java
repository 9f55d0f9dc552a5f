package io.idempotency.reconcile;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.Redaction;
import io.idempotency.ledger.ResultCodec;
import io.idempotency.reconcile.SettlementRefusedException.Reason;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.PropertyBindingException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

/**
 * The result of a call settled as succeeded, from the JSON an operator gives to the JSON the ledger stores:
 * bound strictly to the tool's result type where this application has the tool, and stored as the advice
 * stores a result. Numbers are read as their exact decimal value, never through {@code double}: a result of
 * {@code 12.50} is stored {@code 12.50}, where the type does not say otherwise.
 */
final class SettledResults {

	private final ReconcileMethods tools;

	private final JsonMapper resultMapper;

	private final ResultCodec results;

	SettledResults(ReconcileMethods tools, JsonMapper resultMapper) {
		this.tools = tools;
		this.resultMapper = resultMapper;
		this.results = new ResultCodec(resultMapper, tools.maxResultBytes());
	}

	/** The result as the ledger stores it, checked as the advice checks a tool's result; else the refusal. */
	String storable(CallRecord call, String resultJson, Redaction redaction) {
		IdempotencyKey key = call.entry().key();
		String tool = call.entry().tool();
		Optional<ReconcileMethod> method = this.tools.find(tool);
		Optional<ResolvableType> type = this.tools.resultType(tool);
		if (method.isPresent() && method.get().returnsNothing()) {
			if (resultJson != null && !resultJson.isBlank()) {
				throw new SettlementRefusedException(key, Reason.RESULT_REFUSED,
						"tool '" + tool + "' returns nothing, so a settlement has no result");
			}
			return null;
		}
		if (resultJson == null || resultJson.isBlank()) {
			throw new SettlementRefusedException(key, Reason.RESULT_REFUSED, "give the result the call of tool '" + tool
					+ "' returned, as JSON (JSON null for a call that returned null)");
		}
		Object value;
		try {
			value = (type.isPresent()) ? bind(resultJson, type.get()) : tree(resultJson);
		}
		catch (JacksonException ex) {
			throw new SettlementRefusedException(key, Reason.RESULT_REFUSED,
					"the result does not bind to the result type of tool '" + tool + "': " + whatDoesNotBind(ex));
		}
		Set<String> sensitive = method.map(ReconcileMethod::sensitiveNames).orElse(Set.of());
		ResultCodec.Storable storable = this.results.storable(value, redaction, null, sensitive);
		if (storable.notStored() != null) {
			throw new SettlementRefusedException(key, Reason.RESULT_REFUSED,
					"the result may not be stored: " + storable.notStored());
		}
		return storable.json();
	}

	/** Binds strictly: a member the type does not have, or anything after the value, is a mistake. */
	private Object bind(String json, ResolvableType type) {
		return exact(this.resultMapper.readerFor(this.resultMapper.getTypeFactory().constructType(type.getType())))
			.readValue(json);
	}

	/** A result of a tool this application does not have: any JSON, its numbers as written. */
	private JsonNode tree(String json) {
		return exact(this.resultMapper.readerFor(JsonNode.class)).readValue(json);
	}

	/**
	 * Reads strictly and every number exactly: decimals as {@code BigDecimal} with their scale, where the type
	 * leaves it open (a tree, a map, {@code Object}); a member the type lacks or text after the value refused.
	 */
	private static ObjectReader exact(ObjectReader reader) {
		return reader
			.with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
					DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);
	}

	/**
	 * What of a result does not bind, in JSON's words, for whoever settles: the member or value at fault and
	 * where, never a Java type.
	 */
	static String whatDoesNotBind(JacksonException failure) {
		String at = failure.getPath().isEmpty() ? "" : " at " + pointer(failure.getPath());
		if (failure instanceof StreamReadException) {
			return "it is not JSON (" + failure.getOriginalMessage() + ")";
		}
		if (failure instanceof PropertyBindingException unknown) {
			return "member '" + unknown.getPropertyName() + "'" + at + ": the result type has no such member";
		}
		if (failure instanceof InvalidFormatException invalid && invalid.getTargetType() != null) {
			return "the value" + at + ", " + quoted(invalid.getValue()) + ", is not " + jsonWord(invalid.getTargetType());
		}
		String message = String.valueOf(failure.getOriginalMessage());
		if (message.startsWith("Trailing token")) {
			return "there is more after the value";
		}
		if (failure instanceof MismatchedInputException mismatched && mismatched.getTargetType() != null) {
			return "the value" + at + " is not " + jsonWord(mismatched.getTargetType());
		}
		return "the value" + at + " does not fit";
	}

	/** A path as a JSON pointer: {@code /items/0/quantity}. */
	private static String pointer(List<JacksonException.Reference> path) {
		StringBuilder pointer = new StringBuilder();
		for (JacksonException.Reference step : path) {
			pointer.append('/').append((step.getPropertyName() != null) ? step.getPropertyName() : step.getIndex());
		}
		return pointer.toString();
	}

	private static String quoted(Object value) {
		return (value instanceof String text) ? "\"" + text + "\"" : String.valueOf(value);
	}

	/** What JSON calls a value of this type. */
	private static String jsonWord(Class<?> type) {
		if (type.isArray() || java.util.Collection.class.isAssignableFrom(type)) {
			return "an array";
		}
		Class<?> boxed = org.springframework.util.ClassUtils.resolvePrimitiveIfNecessary(type);
		if (boxed == Integer.class || boxed == Long.class || boxed == Short.class || boxed == Byte.class
				|| boxed == java.math.BigInteger.class) {
			return "a whole number";
		}
		if (Number.class.isAssignableFrom(boxed)) {
			return "a number";
		}
		if (boxed == Boolean.class) {
			return "true or false";
		}
		if (CharSequence.class.isAssignableFrom(boxed) || boxed == Character.class) {
			return "a string";
		}
		return boxed.isEnum() ? "one of its names" : "an object";
	}

}
