package io.idempotency;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

/**
 * Stores tool results as JSON and reads them back as the tool's declared (generic) result type, with the
 * application's JSON mapper, so that a replay returns what the first call returned.
 */
final class ResultCodec {

	private final JsonMapper mapper;

	ResultCodec(JsonMapper mapper) {
		this.mapper = mapper;
	}

	String write(Object result) {
		return this.mapper.writeValueAsString(result);
	}

	Object read(String json, ResolvableType type) {
		if (json == null || void.class.equals(type.resolve()) || Void.class.equals(type.resolve())) {
			return null;
		}
		JavaType javaType = this.mapper.getTypeFactory().constructType(type.getType());
		try {
			return this.mapper.readValue(json, javaType);
		}
		catch (JacksonException ex) {
			throw new UnreadableResultException("The stored result cannot be read back as " + type + ": "
					+ ex.getOriginalMessage(), ex);
		}
	}

	/** A stored result that the tool's result type can no longer read (the type changed since). */
	static final class UnreadableResultException extends IllegalStateException {

		private static final long serialVersionUID = 1L;

		UnreadableResultException(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
