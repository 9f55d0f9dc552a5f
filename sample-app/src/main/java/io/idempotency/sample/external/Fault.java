package io.idempotency.sample.external;

/** What an external system does to the next request it receives. */
public enum Fault {

	/** Answers normally. */
	NONE,

	/** Does the work, then answers too late: the caller times out, not knowing that it happened. */
	TIMEOUT_AFTER_EFFECT,

	/** Fails before doing anything: a 503, and nothing happened. */
	FAIL_BEFORE_EFFECT,

	/** Does the work and answers slowly, within the caller's timeout. */
	SLOW

}
