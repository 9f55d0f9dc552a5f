package io.idempotency;

/** What an idempotent tool does when it is called outside any run. */
public enum MissingRunPolicy {

	/** Refuse with a {@link MissingRunException}; nothing is executed. The default. */
	REFUSE,

	/** Execute without deduplication, and log a warning each time. */
	EXECUTE_WITHOUT_DEDUPLICATION

}
