package io.idempotency;

/**
 * How a repeat is answered whose key is an earlier call's, but whose other arguments (those a tool left out
 * of its key) differ from what that call received: a model that rephrased a description, or added a field it
 * left out the first time. Never executed: the action was done.
 */
public enum DifferentDetails {

	/**
	 * Answered as a replay of the earlier call's result, and told which details differ and that they were not
	 * applied ({@code kind: "replayed_different_details"}).
	 */
	REPLAY,

	/**
	 * Refused, and told which details differ ({@code kind: "refused_different_details"}), as an HTTP API answers
	 * a reused idempotency key with a different payload with 422.
	 */
	REFUSE

}
