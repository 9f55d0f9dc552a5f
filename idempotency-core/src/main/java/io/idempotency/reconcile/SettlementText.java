package io.idempotency.reconcile;

import java.util.Locale;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.SettlementRefusedException.Reason;

/**
 * Who settles a call and why, checked before the ledger is read: given, and text that every database keeps as
 * it was written. PostgreSQL refuses U+0000 in text; a name longer than the column {@code settled_by}, or a
 * reason longer than the ledger keeps, does not fit it; and a control character in a name, or one other than a tab or a line break in a reason, is no text
 * an operator meant (a log line or a model reads them back).
 */
final class SettlementText {

	/** The longest name of who settles a call that the ledger keeps ({@code settled_by}). */
	static final int MAX_OPERATOR_LENGTH = 255;

	private SettlementText() {
	}

	static void checkOperator(IdempotencyKey key, String operator) {
		if (operator == null || operator.isBlank()) {
			throw new SettlementRefusedException(key, Reason.MISSING_REASON, "say who settles the call");
		}
		if (operator.length() > MAX_OPERATOR_LENGTH) {
			throw new SettlementRefusedException(key, Reason.INVALID_REQUEST, "the name of who settles the call is "
					+ operator.length() + " characters long; the ledger keeps at most " + MAX_OPERATOR_LENGTH);
		}
		refuseUnstorable(key, operator, "the name of who settles the call", false);
	}

	static void checkReason(IdempotencyKey key, String reason) {
		if (reason == null || reason.isBlank()) {
			throw new SettlementRefusedException(key, Reason.MISSING_REASON, "say why the call is settled so");
		}
		if (reason.length() > JdbcLedger.MAX_ERROR_LENGTH) {
			throw new SettlementRefusedException(key, Reason.INVALID_REQUEST, "the reason is " + reason.length()
					+ " characters long; the ledger keeps at most " + JdbcLedger.MAX_ERROR_LENGTH);
		}
		refuseUnstorable(key, reason, "the reason", true);
	}

	/**
	 * Refuses U+0000 and the other control characters (but tabs and line breaks in a text of several lines),
	 * and a surrogate that is not half of a pair (no character at all, stored as '?').
	 */
	private static void refuseUnstorable(IdempotencyKey key, String text, String what, boolean lines) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			boolean allowed = !Character.isISOControl(c) || (lines && (c == '\t' || c == '\n' || c == '\r'));
			if (!allowed) {
				throw new SettlementRefusedException(key, Reason.INVALID_REQUEST, what + " holds the control character "
						+ codePoint(c) + " at position " + (i + 1) + ", which the ledger does not store: write it without");
			}
			if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				throw new SettlementRefusedException(key, Reason.INVALID_REQUEST, what + " holds " + codePoint(c)
						+ " at position " + (i + 1) + ", half of a character, which the ledger does not store");
			}
		}
	}

	private static String codePoint(char c) {
		return String.format(Locale.ROOT, "U+%04X", (int) c);
	}

}
