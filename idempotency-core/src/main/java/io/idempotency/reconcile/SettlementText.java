package io.idempotency.reconcile;

import java.util.Locale;
import java.util.function.Function;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.SettlementRefusedException.Reason;

/**
 * Who settles a call (or decides on its approval) and why, checked before the ledger is read: given, and text that every database keeps as
 * it was written. PostgreSQL refuses U+0000 in text; a name longer than the column {@code settled_by}, or a
 * reason longer than the ledger keeps, does not fit it; and a control character in a name, or one other than a tab or a line break in a reason, is no text
 * an operator meant (a log line or a model reads them back).
 */
final class SettlementText {

	/** The longest name of who settles a call that the ledger keeps ({@code settled_by}). */
	static final int MAX_OPERATOR_LENGTH = 255;

	private SettlementText() {
	}

	/**
	 * How a check refuses: with the exception for text that is missing, and the one for text the ledger does not
	 * store.
	 */
	record Refusal(Function<String, RuntimeException> missing, Function<String, RuntimeException> invalid) {
	}

	/** The refusal of a settlement. */
	static Refusal settlement(IdempotencyKey key) {
		return new Refusal((why) -> new SettlementRefusedException(key, Reason.MISSING_REASON, why),
				(why) -> new SettlementRefusedException(key, Reason.INVALID_REQUEST, why));
	}

	static void checkOperator(IdempotencyKey key, String operator) {
		checkOperator(operator, "settles the call", settlement(key));
	}

	static void checkReason(IdempotencyKey key, String reason) {
		checkReason(reason, "say why the call is settled so", settlement(key));
	}

	/**
	 * Checks who acts on a call.
	 * @param acts what they do, as {@code "settles the call"}
	 */
	static void checkOperator(String operator, String acts, Refusal refusal) {
		if (operator == null || operator.isBlank()) {
			throw refusal.missing().apply("say who " + acts);
		}
		if (operator.length() > MAX_OPERATOR_LENGTH) {
			throw refusal.invalid().apply("the name of who " + acts + " is " + operator.length()
					+ " characters long; the ledger keeps at most " + MAX_OPERATOR_LENGTH);
		}
		refuseUnstorable(operator, "the name of who " + acts, false, refusal);
	}

	/**
	 * Checks why.
	 * @param ask what a missing reason is asked as, as {@code "say why the call is settled so"}
	 */
	static void checkReason(String reason, String ask, Refusal refusal) {
		if (reason == null || reason.isBlank()) {
			throw refusal.missing().apply(ask);
		}
		if (reason.length() > JdbcLedger.MAX_ERROR_LENGTH) {
			throw refusal.invalid().apply("the reason is " + reason.length() + " characters long; the ledger keeps at most "
					+ JdbcLedger.MAX_ERROR_LENGTH);
		}
		refuseUnstorable(reason, "the reason", true, refusal);
	}

	/**
	 * Refuses U+0000 and the other control characters (but tabs and line breaks in a text of several lines),
	 * and a surrogate that is not half of a pair (no character at all, stored as '?').
	 */
	private static void refuseUnstorable(String text, String what, boolean lines, Refusal refusal) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			boolean allowed = !Character.isISOControl(c) || (lines && (c == '\t' || c == '\n' || c == '\r'));
			if (!allowed) {
				throw refusal.invalid().apply(what + " holds the control character " + codePoint(c) + " at position " + (i + 1)
						+ ", which the ledger does not store: write it without");
			}
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw refusal.invalid().apply(what + " holds " + codePoint(c) + " at position " + (i + 1)
						+ ", half of a character, which the ledger does not store");
			}
		}
	}

	private static String codePoint(char c) {
		return String.format(Locale.ROOT, "U+%04X", (int) c);
	}

}
