package io.idempotency.sample.external;

/** What an external system does to the next request it receives. */
public enum Fault {

	/** Answers normally. */
	NONE,

	/** Does the work, then answers too late: the caller times out, not knowing that it happened. */
	TIMEOUT_AFTER_EFFECT,

	/**
	 * Refuses before doing anything: a 429 Too Many Requests, which says that nothing happened. (A 502, 503 or
	 * 504 would not: a gateway may answer it while the work goes on, so the library records it unknown.)
	 */
	FAIL_BEFORE_EFFECT,

	/** Does the work and answers slowly, within the caller's timeout. */
	SLOW

}
