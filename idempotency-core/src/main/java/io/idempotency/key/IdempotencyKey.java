package io.idempotency.key;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The idempotency key of one intended action: the SHA-256 of the canonical envelope of tool, run and
 * arguments, as 64 lowercase hex characters (key specification version 1).
 *
 * <p>Two calls with the same key are the same intent and must produce one effect. Obtain keys from
 * {@link IdempotencyKeys}; this type only carries the value.
 *
 * @param value the 64-character lowercase hex key
 */
public record IdempotencyKey(String value) {

	private static final Pattern SHAPE = Pattern.compile("[0-9a-f]{64}");

	/**
	 * Wraps an existing key value, for example one read back from the ledger.
	 * @throws IllegalArgumentException if the value is not 64 lowercase hex characters
	 */
	public IdempotencyKey {
		Objects.requireNonNull(value, "value");
		if (!SHAPE.matcher(value).matches()) {
			throw new IllegalArgumentException(
					"An idempotency key is 64 lowercase hex characters, but got '" + value + "'");
		}
	}

	@Override
	public String toString() {
		return this.value;
	}

}
