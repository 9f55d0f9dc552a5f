package io.idempotency.reconcile;

import java.lang.reflect.Method;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A tool's reconcile method, on the bean it is called on: what the reconciler asks "did this call happen?".
 *
 * @param tool the tool's name
 * @param bean the tool's bean, looked up when first asked (a lazy bean is created only then)
 * @param method the reconcile method: it takes stored arguments by name, or the call's
 * {@code IdempotencyKey}, and returns a {@code Reconciliation}
 * @param returnsNothing whether the tool returns nothing, so that there is no result to store
 * @param sensitiveNames names of members the tool marks sensitive, never stored in a result
 */
public record ReconcileMethod(String tool, Supplier<Object> bean, Method method, boolean returnsNothing,
		Set<String> sensitiveNames) {

	public ReconcileMethod {
		Objects.requireNonNull(tool, "tool");
		Objects.requireNonNull(bean, "bean");
		Objects.requireNonNull(method, "method");
		sensitiveNames = Set.copyOf(sensitiveNames);
	}

}
