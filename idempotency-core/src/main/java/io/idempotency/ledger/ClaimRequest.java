package io.idempotency.ledger;

import java.util.Objects;
import java.util.Set;

import io.idempotency.key.IdempotencyKey;

/**
 * What a call asks of the ledger before it executes.
 *
 * <p>The run id, the user id and the tool name must not be blank, longer than {@link #MAX_NAME_LENGTH}
 * characters, or hold control characters (U+0000 to U+001F, U+007F to U+009F).
 *
 * @param key the call's idempotency key, derived over the full arguments
 * @param runId the run the call belongs to
 * @param userId the user on whose behalf it runs, or {@code null} where the application has no users; a
 * row is only ever answered to the same user
 * @param tool the tool's name
 * @param arguments the full arguments as a JSON object; sensitive values are redacted before they are
 * stored
 * @param sensitiveNames names of members to redact in this call, in addition to the ledger's configured
 * ones (for example parameters marked sensitive)
 * @param approvalReason why the call needs a person's approval before it executes, or {@code null} when it needs
 * none: a call that needs approval is claimed as waiting for it, and executes only once a person has approved it
 */
public record ClaimRequest(IdempotencyKey key, String runId, String userId, String tool, String arguments,
		Set<String> sensitiveNames, String approvalReason) {

	/** The longest run id, user id and tool name the ledger stores. */
	public static final int MAX_NAME_LENGTH = 255;

	public ClaimRequest {
		Objects.requireNonNull(key, "key");
		requireName(runId, "runId", false);
		requireName(userId, "userId", true);
		requireName(tool, "tool", false);
		Objects.requireNonNull(arguments, "arguments");
		sensitiveNames = (sensitiveNames != null) ? Set.copyOf(sensitiveNames) : Set.of();
		if (approvalReason != null) {
			requireReason(approvalReason);
		}
	}

	public ClaimRequest(IdempotencyKey key, String runId, String userId, String tool, String arguments,
			Set<String> sensitiveNames) {
		this(key, runId, userId, tool, arguments, sensitiveNames, null);
	}

	public ClaimRequest(IdempotencyKey key, String runId, String userId, String tool, String arguments) {
		this(key, runId, userId, tool, arguments, Set.of(), null);
	}

	/** Whether the call needs a person's approval before it executes. */
	public boolean needsApproval() {
		return this.approvalReason != null;
	}

	/** The same request, needing a person's approval for this reason. */
	public ClaimRequest withApproval(String reason) {
		return new ClaimRequest(this.key, this.runId, this.userId, this.tool, this.arguments, this.sensitiveNames,
				java.util.Objects.requireNonNull(reason, "reason"));
	}

	private static void requireReason(String reason) {
		if (reason.isBlank()) {
			throw new IllegalArgumentException("approvalReason must not be blank");
		}
		for (int i = 0; i < reason.length(); i++) {
			char c = reason.charAt(i);
			if (Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r') {
				throw new IllegalArgumentException("approvalReason holds the control character " + codePoint(reason, i)
						+ " at index " + i + "; the ledger refuses them");
			}
		}
	}

	/**
	 * Where a run id, user id or tool name holds its first control character (U+0000 to U+001F, U+007F to
	 * U+009F), which the ledger refuses: a line break would forge lines in the logs that name it, and U+0000
	 * cannot be stored. {@code -1} when it holds none.
	 */
	public static int controlCharacterAt(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (Character.isISOControl(value.charAt(i))) {
				return i;
			}
		}
		return -1;
	}

	/** The character at the index, as {@code U+000A}. */
	public static String codePoint(String value, int index) {
		return String.format("U+%04X", (int) value.charAt(index));
	}

	private static void requireName(String value, String name, boolean optional) {
		if (value == null) {
			if (!optional) {
				throw new IllegalArgumentException(name + " must not be null");
			}
			return;
		}
		if (value.isBlank()) {
			throw new IllegalArgumentException(name + " must not be blank");
		}
		if (value.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException(name + " is " + value.length() + " characters long; the ledger stores at most "
					+ MAX_NAME_LENGTH);
		}
		int control = controlCharacterAt(value);
		if (control >= 0) {
			throw new IllegalArgumentException(name + " holds the control character " + codePoint(value, control)
					+ " at index " + control + "; the ledger refuses them");
		}
	}

}
