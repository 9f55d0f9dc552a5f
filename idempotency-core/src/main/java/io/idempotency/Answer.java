package io.idempotency;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Every way a call of an idempotent tool can be answered, named once. The advice tells each call's answer
 * to {@link IdempotentCallListener}s and {@link IdempotentCallScope}s; a {@link ToolResult} carries it as its
 * kind; the Spring AI and MCP integrations give the model its {@link #kind()}. The observation of each call
 * carries the same kind as its {@code idempotency.outcome}, and {@code /actuator/idempotency} counts answers by
 * it: the model, the metrics and the endpoint share one vocabulary.
 */
public enum Answer {

	/** Claimed and executed; it returned. */
	EXECUTED("executed", null),

	/** Claimed and executed; it threw, and its effect definitely did not happen. */
	FAILED("failed", null),

	/** Claimed and executed; it threw, and its effect may have happened (for the reconciler). */
	UNKNOWN("unknown", null),

	/** A repeat, answered with the stored result of the earlier call in the run. */
	REPLAYED("replayed", "Already done earlier in this run: this is the result of that earlier call."
			+ " Nothing was done again, so report one action, not two."),

	/**
	 * A repeat with the key of a call that succeeded, but with other details (arguments its tool leaves out of
	 * the key) than that call received: answered with that call's result, and told which details differ and
	 * that they were not applied.
	 */
	REPLAYED_DIFFERENT_DETAILS("replayed_different_details", null),

	/**
	 * A repeat of a call that succeeded, whose result was not stored (or can no longer be read back): done, not
	 * done again, and no result to show.
	 */
	REPLAYED_WITHOUT_RESULT("replayed_without_result", "Already done earlier in this run, but its result"
			+ " could not be kept, so it cannot be shown again. Nothing was done again: do not repeat it, and report it"
			+ " as done."),

	/** A repeat of a call still running, or whose outcome is unknown: not a failure, and not to be retried. */
	IN_PROGRESS("in_progress", null),

	/** A repeat of a call that failed; not attempted again. */
	PREVIOUS_ATTEMPT_FAILED("previous_attempt_failed", null),

	/** Refused: another user's call holds the key; nothing was executed. */
	REFUSED_CONFLICT("refused_conflict", null),

	/** Refused: called outside any run; nothing was executed. */
	REFUSED_WITHOUT_RUN("refused_without_run", "Not done: this action is carried out only within a"
			+ " run (the user request it belongs to), and this call was made outside one, so nothing was done. Do not"
			+ " retry it: report that it could not be done."),

	/**
	 * Called outside any run and executed without deduplication, as configured: its result or error is the
	 * tool's own.
	 */
	EXECUTED_WITHOUT_RUN("executed_without_run", null),

	/** Refused: its arguments cannot be made into a key or stored; nothing was executed. */
	REFUSED_INVALID_ARGUMENTS("refused_invalid_arguments", null),

	/** Refused: the call could not be claimed, because the ledger's database failed; nothing was executed. */
	REFUSED_LEDGER_UNAVAILABLE("refused_ledger_unavailable", "Not done: this action could not be"
			+ " recorded before it was carried out, so it was not carried out. Nothing happened. It can be tried again"
			+ " later."),

	/** Refused before the advice: the run a framework named for the call is not a run id; nothing was executed. */
	REFUSED_INVALID_RUN("refused_invalid_run", null),

	/**
	 * Refused: a repeat with the key of an earlier call but other details, of a tool that refuses those; nothing
	 * was executed.
	 */
	REFUSED_DIFFERENT_DETAILS("refused_different_details", null),

	/**
	 * The call needs a person's approval before it is carried out, and waits for it: nothing was executed. Its
	 * repeats are answered the same until a person decides; once approved, the next call of the same action in
	 * its run executes it.
	 */
	AWAITING_APPROVAL("awaiting_approval", null),

	/** Refused: a person rejected the call, or nobody approved it in time; nothing was executed. */
	REFUSED_NOT_APPROVED("refused_not_approved", null);

	private final String kind;

	private final String message;

	Answer(String kind, String message) {
		this.kind = kind;
		this.message = message;
	}

	/**
	 * The answer as the model reads it, in a {@code ToolResult} or a framework's answer, and as the observation's
	 * {@code idempotency.outcome} tags it: {@code in_progress}, {@code refused_conflict}.
	 */
	@JsonValue
	public String kind() {
		return this.kind;
	}

	/**
	 * The sentence a model reads with this answer, for a repeat or a refusal for want of a run or a ledger;
	 * {@code null} for a call executed, or refused for a reason its exception names. A repeat that failed or is in progress
	 * is told the error and the start time besides, where known.
	 */
	public String message() {
		return switch (this) {
			case PREVIOUS_ATTEMPT_FAILED -> previousAttemptFailed(null);
			case IN_PROGRESS -> inProgress(null);
			case AWAITING_APPROVAL -> awaitingApproval(null);
			case REFUSED_NOT_APPROVED -> notApproved(false, null);
			default -> this.message;
		};
	}

	/** A Java exception's class name where an error text names one: for the server's logs, not the model. */
	private static final java.util.regex.Pattern EXCEPTION_CLASS = java.util.regex.Pattern
		.compile("\\b(?:[a-z_][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error|Throwable)\\b(?::\\s*)?");

	static String previousAttemptFailed(String error) {
		String said = (error != null) ? EXCEPTION_CLASS.matcher(error).replaceAll("").strip() : "";
		String reason = (said.isEmpty() || said.equals("null")) ? "" : " (" + said + ")";
		return "This action was already attempted earlier in this run and failed" + reason
				+ ". It was not attempted again.";
	}

	static String inProgress(Instant since) {
		return "This action was started earlier in this run" + (since != null ? " (at " + since + ")" : "")
				+ " and is still in progress, or its outcome is being checked. It was not started again. Do not"
				+ " retry it: report that it is pending.";
	}

	static String awaitingApproval(String reason) {
		String why = (reason == null || reason.isBlank()) ? "" : " (" + reason.strip() + ")";
		return "Not done yet: a person must approve this action before it is carried out" + why + ", and nothing has"
				+ " been done so far. Do not call it again until you are told that a person has decided: tell the user"
				+ " that it awaits approval.";
	}

	static String notApproved(boolean expired, String reason) {
		if (expired) {
			return "Not done: nobody approved this action in time, so it was not carried out, and it will not be. Do"
					+ " not retry it: tell the user that it was not approved in time.";
		}
		String why = (reason == null || reason.isBlank()) ? "" : " (" + reason.strip() + ")";
		return "Not done: a person did not approve this action" + why + ", so it was not carried out, and it will not"
				+ " be. Do not retry it: tell the user that it was not approved" + (why.isEmpty() ? "." : ", and why.");
	}

	/** Whether the call repeats an earlier one of its run and was answered from it, not executed again. */
	public boolean isRepeat() {
		return this == REPLAYED || this == REPLAYED_DIFFERENT_DETAILS || this == REPLAYED_WITHOUT_RESULT
				|| this == IN_PROGRESS || this == PREVIOUS_ATTEMPT_FAILED;
	}

	/** Whether the call was answered with the stored result of an earlier call: a replay with its result. */
	public boolean isReplayWithResult() {
		return this == REPLAYED || this == REPLAYED_DIFFERENT_DETAILS;
	}

	static String differentDetailsReplayed(java.util.List<String> details) {
		return "Already done earlier in this run, with other details: this is the result of that earlier call. These"
				+ " details of this call differ from it and were not applied: " + String.join(", ", details) + "."
				+ " Nothing was done again: report one action, not two, and say that these details were not applied.";
	}

	static String differentDetailsRefused(java.util.List<String> details) {
		return "Not done: this action was already done earlier in this run with other details, and this call's"
				+ " details differ from it: " + String.join(", ", details) + ". Nothing was done again, and the new"
				+ " details were not applied. Report the earlier action, and that these details were not applied.";
	}

	/**
	 * Whether the call was not executed and is answered by the library: a repeat, a refusal, or a call that waits
	 * for a person's approval.
	 */
	public boolean isNotExecuted() {
		return isRepeat() || isRefusal() || this == AWAITING_APPROVAL;
	}

	/** Whether the library refused the call before executing anything. */
	public boolean isRefusal() {
		return this.kind.startsWith("refused_");
	}

}
