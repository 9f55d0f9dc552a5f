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

	/**
	 * A reference for an external system that has no idempotency support of its own: the prefix, a hyphen
	 * and the first 16 hex characters of the key, for example {@code atlas-3f2a9c0b1d4e5f60}. The same call
	 * always gets the same reference, so a tool can look for it before it creates (check-then-create: a race,
	 * but one measured in milliseconds against retries seconds apart) and a reconcile function can look for
	 * it to tell whether the call took effect.
	 * @param prefix a name of the application's choosing, not blank
	 */
	public String externalReference(String prefix) {
		if (prefix == null || prefix.isBlank()) {
			throw new IllegalArgumentException("The prefix of an external reference must not be blank");
		}
		return prefix + "-" + this.value.substring(0, 16);
	}

	@Override
	public String toString() {
		return this.value;
	}

}
