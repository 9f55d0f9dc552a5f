package io.idempotency.run;

/**
 * One run of an agent: everything it does to answer one user request. Idempotency is scoped to the run:
 * the same call within a run is one action, and the same request made again is a new run.
 *
 * @param runId the run's id, unique per user request; never derived from the user or the session
 * @param userId the user on whose behalf the run acts, or {@code null} where the application has none; a
 * blank one is the same as none
 */
public record Run(String runId, String userId) {

	public Run {
		if (runId == null || runId.isBlank()) {
			throw new IllegalArgumentException("A run needs a runId that is not blank");
		}
		if (userId != null && userId.isBlank()) {
			userId = null;
		}
	}

}
