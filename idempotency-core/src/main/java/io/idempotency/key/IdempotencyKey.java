package io.idempotency.key;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

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

	/**
	 * Wraps an existing key value, for example one read back from the ledger.
	 * @throws IllegalArgumentException if the value is not 64 lowercase hex characters
	 */
	public IdempotencyKey {
		Objects.requireNonNull(value, "value");
		if (!isKeyShaped(value)) {
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

	/**
	 * The {@code Idempotency-Key} to send with one outgoing request made by this call: the same request (a
	 * retry, by the tool or by its HTTP client) always gets the same value, and a different request of the
	 * same call (another URI, another body, another method) a different one, as APIs that honour the header
	 * expect. It is the SHA-256, as 64 lowercase hex characters, of the UTF-8 text
	 * {@code "idempotency-request-v1\n" + key + "\n" + METHOD + "\n" + uri + "\n" + sha256hex(body)}, with the
	 * method in upper case and the URI as sent (ASCII form); an absent body is the empty one.
	 * @param method the request's HTTP method, such as {@code POST}
	 * @param uri the request's URI
	 * @param body the request's body, or {@code null} for none
	 */
	public String forRequest(String method, URI uri, byte[] body) {
		if (method == null || method.isBlank()) {
			throw new IllegalArgumentException("The method of a request must not be blank");
		}
		Objects.requireNonNull(uri, "uri");
		String bodyHash = Sha256.hex((body != null) ? body : new byte[0]);
		String request = "idempotency-request-v1\n" + this.value + "\n" + method.toUpperCase(Locale.ROOT) + "\n"
				+ uri.toASCIIString() + "\n" + bodyHash;
		return Sha256.hex(request.getBytes(StandardCharsets.UTF_8));
	}

	/** 64 lowercase hex characters: checked by hand, as every key read from the ledger is checked. */
	private static boolean isKeyShaped(String value) {
		if (value.length() != 64) {
			return false;
		}
		for (int i = 0; i < 64; i++) {
			char c = value.charAt(i);
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
				return false;
			}
		}
		return true;
	}

	@Override
	public String toString() {
		return this.value;
	}

}
