package io.idempotency;

import java.util.Optional;

/**
 * The answer to "did this happen?": found, with the action's result, or not found. A reconcile method of
 * an {@link IdempotentTool} returns it.
 *
 * @param tookEffect whether the action took effect
 * @param result the action's result when found (or {@code null} for a tool that returns nothing)
 * @param <T> the tool's result type
 */
public record Reconciliation<T>(boolean tookEffect, T result) {

	/** The action took effect, with this result. */
	public static <T> Reconciliation<T> found(T result) {
		return new Reconciliation<>(true, result);
	}

	/** The action took effect; the tool returns nothing. */
	public static <T> Reconciliation<T> found() {
		return new Reconciliation<>(true, null);
	}

	/** The action did not take effect. */
	public static <T> Reconciliation<T> notFound() {
		return new Reconciliation<>(false, null);
	}

	/** Found with the value if present, not found if empty. */
	public static <T> Reconciliation<T> of(Optional<T> result) {
		return result.map(Reconciliation::found).orElseGet(Reconciliation::notFound);
	}

}
