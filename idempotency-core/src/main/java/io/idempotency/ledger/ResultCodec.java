package io.idempotency.ledger;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.Set;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.Redaction;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * Stores tool results as JSON and reads them back as the tool's declared (generic) result type, with the
 * application's JSON mapper, so that a replay returns what the first call returned.
 */
public final class ResultCodec {

	/** How many bytes a result may take as JSON (UTF-8) to be stored, unless configured otherwise: 1 MiB. */
	public static final long DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

	private final JsonMapper mapper;

	private final long maxResultBytes;

	/** A reader for each result type read back, with its deserializer found once; held softly. */
	private final Map<Type, ObjectReader> readers = new ConcurrentReferenceHashMap<>();

	public ResultCodec(JsonMapper mapper, long maxResultBytes) {
		this.mapper = mapper;
		this.maxResultBytes = maxResultBytes;
	}

	public String write(Object result) {
		return this.mapper.writeValueAsString(result);
	}

	/**
	 * The result as the JSON the ledger may store, or why it may not: it cannot be written as JSON, is larger
	 * than the limit, holds U+0000 (which PostgreSQL's JSON types cannot store), holds a member of a name the
	 * ledger lists as secret, or quotes the value of an argument the ledger redacts, escaped or not. A string
	 * of the result that is JSON text (a tool's text result, an MCP tool's text content) is checked as JSON
	 * too. A secret is never stored, not even redacted: a replay that handed back a redacted result would
	 * pass a wrong value off as the right one.
	 * @param arguments the call's arguments as the tool received them, or {@code null} where they are gone
	 */
	public Storable storable(Object result, Redaction redaction, String arguments, Set<String> sensitiveNames) {
		String json;
		try {
			json = write(result);
		}
		catch (RuntimeException ex) {
			return new Storable(null, "it cannot be written as JSON: " + ex.getMessage());
		}
		long size = IdempotencyKeys.utf8Length(json);
		if (size > this.maxResultBytes) {
			return new Storable(null, "it takes " + size + " bytes as JSON, more than the " + this.maxResultBytes
					+ " the ledger stores");
		}
		if (holdsTheNullCharacter(json)) {
			return new Storable(null, "it contains the character U+0000, which the ledger cannot store");
		}
		if (redaction.namesAListedSecret(json, sensitiveNames)) {
			return new Storable(null, "it holds a member whose name the ledger redacts, and secrets are never stored");
		}
		if (arguments != null && redaction.quotesARedactedValue(json, arguments, sensitiveNames)) {
			return new Storable(null, "it quotes the value of an argument the ledger redacts, and secrets are never stored");
		}
		return new Storable(json, null);
	}

	/**
	 * Whether JSON text holds U+0000: its escape in a string (a backslash, then {@code u0000}) where that backslash
	 * is not itself escaped. An escaped backslash before the letters {@code u0000} is text, and stored.
	 */
	static boolean holdsTheNullCharacter(String json) {
		for (int at = json.indexOf("\\u0000"); at >= 0; at = json.indexOf("\\u0000", at + 1)) {
			int backslashes = 0;
			while (at - backslashes - 1 >= 0 && json.charAt(at - backslashes - 1) == '\\') {
				backslashes++;
			}
			if (backslashes % 2 == 0) {
				return true;
			}
		}
		return false;
	}

	/** A result's JSON to store, or, when it is {@code null}, why it is not stored. */
	public record Storable(String json, String notStored) {
	}

	public Object read(String json, ResolvableType type) {
		if (json == null || void.class.equals(type.resolve()) || Void.class.equals(type.resolve())) {
			return null;
		}
		try {
			return this.readers.computeIfAbsent(type.getType(),
					(resultType) -> this.mapper.readerFor(this.mapper.getTypeFactory().constructType(resultType)))
				.readValue(json);
		}
		catch (JacksonException ex) {
			throw new UnreadableResultException("The stored result cannot be read back as " + type + ": "
					+ ex.getOriginalMessage(), ex);
		}
	}

	/** A stored result that the tool's result type can no longer read (the type changed since). */
	public static final class UnreadableResultException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		UnreadableResultException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
