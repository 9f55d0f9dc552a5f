package io.idempotency.key;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.function.Predicate;

import tools.jackson.core.io.NumberOutput;

/**
 * Numbers in their canonical form: the exact decimal value written plain, without exponent, leading
 * or trailing zeros, or negative zero. Binary floating-point values first become the shortest decimal
 * that reads back as the same value.
 */
final class CanonicalNumbers {

	/** The longest plain form accepted, in digits. */
	static final int MAX_DIGITS = 1000;

	/** The closest single digit first, then the other neighbour. */
	private static final RoundingMode[] ONE_DIGIT_CANDIDATES = { RoundingMode.HALF_EVEN, RoundingMode.FLOOR,
			RoundingMode.CEILING };

	private CanonicalNumbers() {
	}

	/**
	 * The plain form of an exact decimal value.
	 * @throws IllegalArgumentException if the plain form needs more than {@link #MAX_DIGITS} digits
	 */
	static String plain(BigDecimal value) {
		if (value.signum() == 0) {
			return "0";
		}
		BigDecimal stripped = value.stripTrailingZeros();
		long digits = plainDigits(stripped);
		if (digits > MAX_DIGITS) {
			throw new IllegalArgumentException(
					"is a number whose plain form needs " + digits + " digits, more than the " + MAX_DIGITS + " allowed");
		}
		return stripped.toPlainString();
	}

	static String plain(BigInteger value) {
		return plain(new BigDecimal(value));
	}

	/**
	 * The plain form of the shortest decimal that reads back as this {@code double}.
	 * @throws IllegalArgumentException if the value is NaN or infinite
	 */
	static String plain(double value) {
		if (!Double.isFinite(value)) {
			throw new IllegalArgumentException("is " + value + ", which is not a valid argument value");
		}
		// Schubfach (JDK 17's Double.toString is not always the shortest).
		BigDecimal shortest = oneDigitWhereItReadsBack(new BigDecimal(NumberOutput.toString(value, true)),
				new BigDecimal(value), (d) -> d.doubleValue() == value);
		return plain(shortest);
	}

	/**
	 * The plain form of the shortest decimal that reads back as this {@code float}.
	 * @throws IllegalArgumentException if the value is NaN or infinite
	 */
	static String plain(float value) {
		if (!Float.isFinite(value)) {
			throw new IllegalArgumentException("is " + value + ", which is not a valid argument value");
		}
		BigDecimal shortest = oneDigitWhereItReadsBack(new BigDecimal(NumberOutput.toString(value, true)),
				new BigDecimal(value), (d) -> d.floatValue() == value);
		return plain(shortest);
	}

	/**
	 * Schubfach, like Java's {@code toString}, writes at least two significant digits: where a single digit
	 * reads back as the value too (as {@code 5E-324} does for {@code Double.MIN_VALUE}), ECMAScript and the
	 * specification take that single digit.
	 */
	private static BigDecimal oneDigitWhereItReadsBack(BigDecimal javaShortest, BigDecimal exact,
			Predicate<BigDecimal> readsBack) {
		if (javaShortest.stripTrailingZeros().precision() != 2) {
			return javaShortest;
		}
		for (RoundingMode mode : ONE_DIGIT_CANDIDATES) {
			BigDecimal oneDigit = exact.round(new MathContext(1, mode));
			if (readsBack.test(oneDigit)) {
				return oneDigit;
			}
		}
		return javaShortest;
	}

	private static long plainDigits(BigDecimal stripped) {
		long precision = stripped.precision();
		long scale = stripped.scale();
		if (scale <= 0) {
			return precision - scale;
		}
		// A leading "0." where every significant digit sits behind the point.
		return (scale >= precision) ? scale + 1 : precision;
	}

}
