package io.idempotency.test;

import java.util.Objects;

import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import org.assertj.core.api.AbstractAssert;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Assertions on one call a ledger holds: its outcome, its result and arguments as stored, and how many
 * repeats were answered from it. Obtained from {@link LedgerAssert#call(String)}.
 */
public final class CallAssert extends AbstractAssert<CallAssert, LedgerEntry> {

	private static final JsonMapper JSON = new JsonMapper();

	CallAssert(LedgerEntry call) {
		super(call, CallAssert.class);
	}

	/** Verifies that the call succeeded: its effect happened and its result is stored. */
	public CallAssert succeeded() {
		return hasStatus(LedgerStatus.SUCCEEDED);
	}

	/** Verifies that the call failed: it definitely did not take effect. */
	public CallAssert failed() {
		return hasStatus(LedgerStatus.FAILED);
	}

	/** Verifies that whether the call took effect is unknown: the reconciler is to settle it. */
	public CallAssert isUnknown() {
		return hasStatus(LedgerStatus.UNKNOWN);
	}

	/** Verifies that the call is still attempting: running, or its process died while it ran. */
	public CallAssert isAttempting() {
		return hasStatus(LedgerStatus.ATTEMPTING);
	}

	/**
	 * Verifies where the call stands.
	 * @param status the expected status
	 */
	public CallAssert hasStatus(LedgerStatus status) {
		if (this.actual.status() != status) {
			failWithMessage("Expected the call to be %s, but it is %s: %s", name(status), name(this.actual.status()),
					describe(this.actual));
		}
		return this;
	}

	/**
	 * Verifies how many repeats of the call were answered from it without executing.
	 * @param times the expected number of repeats
	 */
	public CallAssert wasReplayed(int times) {
		if (this.actual.replayCount() != times) {
			failWithMessage("Expected the call to have been replayed %d time(s), but it was replayed %d time(s): %s",
					times, this.actual.replayCount(), describe(this.actual));
		}
		return this;
	}

	/** Verifies that no repeat of the call was answered from it. */
	public CallAssert wasNotReplayed() {
		return wasReplayed(0);
	}

	/**
	 * Verifies the call's stored result, compared as JSON: the order of an object's fields and white space do
	 * not matter.
	 * @param json the expected result, as JSON
	 */
	public CallAssert hasResult(String json) {
		return hasJson("result", this.actual.result(), json);
	}

	/**
	 * Verifies the call's arguments as stored (sensitive values redacted), compared as JSON.
	 * @param json the expected arguments, as JSON
	 */
	public CallAssert hasArguments(String json) {
		return hasJson("arguments", this.actual.arguments(), json);
	}

	/**
	 * Verifies that the call's stored error contains a text.
	 * @param text the text the error must contain
	 */
	public CallAssert hasErrorContaining(String text) {
		Objects.requireNonNull(text, "text");
		if (this.actual.error() == null || !this.actual.error().contains(text)) {
			failWithMessage("Expected the call's error to contain \"%s\", but it is %s: %s", text,
					(this.actual.error() != null) ? "\"" + this.actual.error() + "\"" : "none", describe(this.actual));
		}
		return this;
	}

	/**
	 * Verifies the user the call was made for.
	 * @param userId the user's id, or {@code null} for a call made without a user
	 */
	public CallAssert wasMadeBy(String userId) {
		if (!Objects.equals(this.actual.userId(), userId)) {
			failWithMessage("Expected the call to have been made by user %s, but it was made by %s: %s", userId,
					this.actual.userId(), describe(this.actual));
		}
		return this;
	}

	private CallAssert hasJson(String what, String stored, String expected) {
		JsonNode expectedTree = read(expected, "The expected " + what);
		if (stored == null || !read(stored, "The stored " + what).equals(expectedTree)) {
			failWithMessage("Expected the call's %s to be%n  %s%nbut it is%n  %s%n%s", what, expected, stored,
					describe(this.actual));
		}
		return this;
	}

	private static JsonNode read(String json, String what) {
		try {
			return JSON.readTree(json);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException(what + " is not JSON: " + json, ex);
		}
	}

	private static String name(LedgerStatus status) {
		return status.name().toLowerCase(java.util.Locale.ROOT);
	}

	static String describe(LedgerEntry call) {
		return call.tool() + " in run " + call.runId() + ((call.userId() != null) ? " for user " + call.userId() : "")
				+ ": " + name(call.status()) + ", replayed " + call.replayCount() + " time(s), arguments "
				+ call.arguments() + ((call.result() != null) ? ", result " + call.result() : "")
				+ ((call.error() != null) ? ", error " + call.error() : "");
	}

}
