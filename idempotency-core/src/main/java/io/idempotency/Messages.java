package io.idempotency;

import java.time.Instant;

/** The sentences a model reads when a call is answered without executing. */
final class Messages {

	static final String REPLAYED = "Already done earlier in this run: this is the result of that earlier call."
			+ " Nothing was done again, so report one action, not two.";

	static final String REPLAYED_WITHOUT_RESULT = "Already done earlier in this run, but its result could not be"
			+ " kept, so it cannot be shown again. Nothing was done again: do not repeat it, and report it as done.";

	static final String LEDGER_UNAVAILABLE = "Not done: this action could not be recorded before it was carried"
			+ " out, so it was not carried out. Nothing happened. It can be tried again later.";

	private Messages() {
	}

	static String previousAttemptFailed(String error) {
		String reason = (error == null || error.isBlank()) ? "" : " (" + error + ")";
		return "This action was already attempted earlier in this run and failed" + reason
				+ ". It was not attempted again.";
	}

	static String inProgress(Instant since) {
		return "This action was started earlier in this run" + (since != null ? " (at " + since + ")" : "")
				+ " and is still in progress, or its outcome is being checked. It was not started again. Do not"
				+ " retry it: report that it is pending.";
	}

}
