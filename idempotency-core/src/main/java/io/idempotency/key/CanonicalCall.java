package io.idempotency.key;

/**
 * A call in canonical form: its key, and its arguments as canonical JSON (members sorted, nulls dropped,
 * strings trimmed, numbers plain). The arguments are in clear: redact them before storing them.
 *
 * @param key the call's idempotency key
 * @param arguments the canonical arguments, a JSON object
 */
public record CanonicalCall(IdempotencyKey key, String arguments) {

	@Override
	public String toString() {
		// Never the arguments: they may hold secrets.
		return "CanonicalCall[key=" + this.key + "]";
	}

}
