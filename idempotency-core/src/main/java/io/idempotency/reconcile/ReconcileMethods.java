package io.idempotency.reconcile;

import java.util.Optional;
import java.util.Set;

import org.springframework.core.ResolvableType;

/**
 * Where the reconciler finds the reconcile method of a tool: the application's tools, once it has started
 * ({@code IdempotentToolRegistry} knows them).
 */
public interface ReconcileMethods {

	/** The names of the tools that have a reconcile method: the reconciler leases the rows of these only. */
	Set<String> reconcilableToolNames();

	/** The reconcile method of the tool of this name, if the application has one. */
	Optional<ReconcileMethod> find(String tool);

	/** The most bytes a result may take as JSON to be stored, as the advice stores them. */
	long maxResultBytes();

	/**
	 * The type of the result the tool of this name stores (the data of a {@code ToolResult}), if the
	 * application has the tool: a result settled by hand must bind to it. None by default.
	 */
	default Optional<ResolvableType> resultType(String tool) {
		return Optional.empty();
	}

}
