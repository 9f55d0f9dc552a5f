package io.idempotency.run;

import java.util.Optional;

/**
 * Where an application keeps its current run when it does not bind it with {@link RunContext}: for
 * example a request-scoped bean, or a header of the current request. Beans of this type are asked, in
 * their order, after a tool's own context parameter and the {@link RunContext} binding.
 */
@FunctionalInterface
public interface RunSource {

	/** The current run, if this source knows it. */
	Optional<Run> currentRun();

}
