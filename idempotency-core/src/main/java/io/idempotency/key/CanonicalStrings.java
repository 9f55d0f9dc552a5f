package io.idempotency.key;

import java.text.Normalizer;

/**
 * Strings in their canonical form: trimmed of ECMAScript white space and line terminators, in Unicode
 * normalisation form NFC, and written with the escapes of RFC 8785.
 */
final class CanonicalStrings {

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	/** Below this code point every character is NFC-stable and combines with nothing before it. */
	private static final char FIRST_COMBINING_MARK = '\u0300';

	private CanonicalStrings() {
	}

	/** The value with leading and trailing white space removed, in NFC. */
	static String normalise(String value) {
		int start = 0;
		int end = value.length();
		while (start < end && isWhiteSpace(value.charAt(start))) {
			start++;
		}
		while (end > start && isWhiteSpace(value.charAt(end - 1))) {
			end--;
		}
		String trimmed = value.substring(start, end);
		return needsNormalisation(trimmed) ? Normalizer.normalize(trimmed, Normalizer.Form.NFC) : trimmed;
	}

	/**
	 * ECMAScript's WhiteSpace and LineTerminator. Not {@link String#strip()}: that keeps U+00A0, U+2007,
	 * U+202F and U+FEFF.
	 */
	static boolean isWhiteSpace(char c) {
		switch (c) {
			case '\t', '\n', '\u000B', '\f', '\r', ' ', '\u00A0', '\u1680', '\u2028', '\u2029', '\u202F', '\u205F',
					'\u3000', '\uFEFF':
				return true;
			default:
				return c >= '\u2000' && c <= '\u200A';
		}
	}

	private static boolean needsNormalisation(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (value.charAt(i) >= FIRST_COMBINING_MARK) {
				return !Normalizer.isNormalized(value, Normalizer.Form.NFC);
			}
		}
		return false;
	}

	/**
	 * Appends the value as a JSON string, quoted and escaped as RFC 8785 section 3.2.2.2 says.
	 * @throws IllegalArgumentException if the value holds a lone surrogate, which has no UTF-8 form
	 */
	static void write(String value, StringBuilder out) {
		out.append('"');
		// Runs of characters written as themselves are appended whole: most strings are one such run.
		int run = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c >= 0x20 && c != '"' && c != '\\' && !Character.isSurrogate(c)) {
				continue;
			}
			appendRun(value, run, i, out);
			switch (c) {
				case '"' -> out.append("\\\"");
				case '\\' -> out.append("\\\\");
				case '\b' -> out.append("\\b");
				case '\t' -> out.append("\\t");
				case '\n' -> out.append("\\n");
				case '\f' -> out.append("\\f");
				case '\r' -> out.append("\\r");
				default -> {
					if (c < 0x20) {
						out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
					}
					else if (Character.isHighSurrogate(c) && i + 1 < value.length()
							&& Character.isLowSurrogate(value.charAt(i + 1))) {
						out.append(c).append(value.charAt(++i));
					}
					else {
						throw new IllegalArgumentException(String.format(
								"holds a lone surrogate U+%04X at index %d, which has no UTF-8 form", (int) c, i));
					}
				}
			}
			run = i + 1;
		}
		appendRun(value, run, value.length(), out);
		out.append('"');
	}

	private static void appendRun(String value, int start, int end, StringBuilder out) {
		if (start == 0 && end == value.length()) {
			out.append(value);
		}
		else if (start < end) {
			out.append(value, start, end);
		}
	}

}
