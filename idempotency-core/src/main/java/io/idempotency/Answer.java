package io.idempotency;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Every way a call of an idempotent tool can be answered, named once. The advice tells each call's answer
 * to {@link IdempotentCallListener}s and {@link IdempotentCallScope}s; a {@link ToolResult} carries it as its
 * kind; the Spring AI and MCP integrations give the model its {@link #kind()}; metrics and the observation
 * tag the call with its {@link #tag()}.
 */
public enum Answer {

	/** Claimed and executed; it returned. */
	EXECUTED("executed", "executed"),

	/** Claimed and executed; it threw, and its effect definitely did not happen. */
	FAILED("failed", "failed"),

	/** Claimed and executed; it threw, and its effect may have happened (for the reconciler). */
	UNKNOWN("unknown", "unknown"),

	/** A repeat, answered with the stored result of the earlier call in the run. */
	REPLAYED("replayed", "replayed"),

	/**
	 * A repeat of a call that succeeded, whose result was not stored (or can no longer be read back): done, not
	 * done again, and no result to show.
	 */
	REPLAYED_WITHOUT_RESULT("replayed_without_result", "replayed"),

	/** A repeat of a call still running, or whose outcome is unknown: not a failure, and not to be retried. */
	IN_PROGRESS("in_progress", "in_progress"),

	/** A repeat of a call that failed; not attempted again. */
	PREVIOUS_ATTEMPT_FAILED("previous_attempt_failed", "previous_attempt_failed"),

	/** Refused: another user's call holds the key; nothing was executed. */
	REFUSED_CONFLICT("refused_conflict", "conflict"),

	/** Refused: called outside any run; nothing was executed. */
	REFUSED_WITHOUT_RUN("refused_without_run", "without_run"),

	/**
	 * Called outside any run and executed without deduplication, as configured: its result or error is the
	 * tool's own.
	 */
	EXECUTED_WITHOUT_RUN("executed_without_run", "executed_without_run"),

	/** Refused: its arguments cannot be made into a key or stored; nothing was executed. */
	REFUSED_INVALID_ARGUMENTS("refused_invalid_arguments", "invalid_arguments"),

	/** Refused: the call could not be claimed, because the ledger's database failed; nothing was executed. */
	REFUSED_LEDGER_UNAVAILABLE("refused_ledger_unavailable", "ledger_unavailable"),

	/** Refused before the advice: the run a framework named for the call is not a run id; nothing was executed. */
	REFUSED_INVALID_RUN("refused_invalid_run", "invalid_run");

	private final String kind;

	private final String tag;

	Answer(String kind, String tag) {
		this.kind = kind;
		this.tag = tag;
	}

	/** The answer as the model reads it, in a {@code ToolResult} or a framework's answer: {@code in_progress}. */
	@JsonValue
	public String kind() {
		return this.kind;
	}

	/** The answer as a metric or observation tag: {@code in_progress}, {@code conflict}. */
	public String tag() {
		return this.tag;
	}

	/** Whether the call repeats an earlier one of its run and was answered from it, not executed again. */
	public boolean isRepeat() {
		return this == REPLAYED || this == REPLAYED_WITHOUT_RESULT || this == IN_PROGRESS
				|| this == PREVIOUS_ATTEMPT_FAILED;
	}

	/** Whether the library refused the call before executing anything. */
	public boolean isRefusal() {
		return this.kind.startsWith("refused_");
	}

}
