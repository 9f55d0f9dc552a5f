package io.idempotency.reconcile;

import java.util.Objects;
import java.util.Set;

import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import tools.jackson.databind.JsonNode;

/**
 * What the reconciler asks "did this call happen?" for a tool: an annotated tool's reconcile method on its
 * bean, or an idempotent function's reconcile function.
 *
 * @param tool the tool's name
 * @param question asks it for one call
 * @param returnsNothing whether the tool returns nothing, so that there is no result to store
 * @param sensitiveNames names of members the tool marks sensitive, never stored in a result
 */
public record ReconcileMethod(String tool, Question question, boolean returnsNothing, Set<String> sensitiveNames) {

	public ReconcileMethod {
		Objects.requireNonNull(tool, "tool");
		Objects.requireNonNull(question, "question");
		sensitiveNames = Set.copyOf(sensitiveNames);
	}

	/** "Did this call happen?", for one call of the tool. */
	@FunctionalInterface
	public interface Question {

		/**
		 * @param key the call's key
		 * @param arguments the call's arguments as the ledger stored them
		 * @return the answer, never {@code null}
		 * @throws Exception when the tool cannot tell yet
		 */
		Reconciliation<?> ask(IdempotencyKey key, JsonNode arguments) throws Exception;

	}

}
