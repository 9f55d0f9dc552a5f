package io.idempotency.key;

/**
 * A call ready to be claimed: its key, derived from the canonical form of its arguments, and its arguments
 * as the tool received them, as JSON written by the library's own mapper (see
 * {@link IdempotencyKeys#argumentsMapper()}): what a reconcile method is later given back. The arguments are
 * in clear: redact them before storing them.
 *
 * @param key the call's idempotency key
 * @param arguments the arguments as received, a JSON object
 */
public record CanonicalCall(IdempotencyKey key, String arguments) {

	@Override
	public String toString() {
		// Never the arguments: they may hold secrets.
		return "CanonicalCall[key=" + this.key + "]";
	}

}
