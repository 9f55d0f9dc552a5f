package io.idempotency.key;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

import java.util.Random;

import io.idempotency.testsupport.PropertyCheck;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binary floating-point values become the shortest decimal that reads back as the same value, and the
 * closest such decimal where several are equally short (as ECMAScript's Number::toString and Java 19's
 * Double.toString do; Java 17's does not).
 */
class CanonicalNumbersTest {

	private static final int TRIES = 1000;

	/** Values where shortest-decimal algorithms go wrong, tried before the generated ones. */
	private static final double[] EDGE_DOUBLES = { 0.0, -0.0, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL,
			Math.nextDown(Double.MIN_NORMAL), Double.MAX_VALUE, -Double.MAX_VALUE, 1.0, -1.0, 0.1, 0.3, 1.0E23, 2.0E23,
			5.0E-324, 9007199254740993.0, 1.0E21, 1.0E-7, 123456789012345680.0 };

	private static final float[] EDGE_FLOATS = { 0.0f, -0.0f, Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE,
			-Float.MAX_VALUE, 1.0f, 0.1f, 1.0E10f, 3.4E-38f, 16777217.0f };

	@Test
	void edgeDoublesBecomeTheirShortestRoundTripDecimal() {
		for (double value : EDGE_DOUBLES) {
			assertShortestRoundTrip(value);
		}
	}

	@Test
	void edgeFloatsBecomeTheirShortestRoundTripDecimal() {
		for (float value : EDGE_FLOATS) {
			assertShortestRoundTrip(value);
		}
	}

	@Test
	void aDoubleBecomesItsShortestRoundTripDecimal() {
		PropertyCheck.forAll(TRIES, (random) -> assertShortestRoundTrip(anyDouble(random)));
	}

	@Test
	void aFloatBecomesItsShortestRoundTripDecimal() {
		PropertyCheck.forAll(TRIES, (random) -> assertShortestRoundTrip(anyFloat(random)));
	}

	@Test
	void anyDoubleBitPatternBecomesItsShortestRoundTripDecimal() {
		PropertyCheck.forAll(TRIES, (random) -> assertShortestRoundTrip(Double.longBitsToDouble(random.nextLong())));
	}

	@Test
	void subnormalDoublesBecomeTheirShortestRoundTripDecimal() {
		PropertyCheck.forAll(TRIES,
				(random) -> assertShortestRoundTrip(Double.longBitsToDouble(1 + random.nextInt(1 << 20))));
	}

	@Test
	void subnormalFloatsBecomeTheirShortestRoundTripDecimal() {
		PropertyCheck.forAll(TRIES, (random) -> assertShortestRoundTrip(Float.intBitsToFloat(1 + random.nextInt(1 << 16))));
	}

	/** Doubles as people and programs write them: integers, short decimals, and values of any magnitude. */
	private static double anyDouble(Random random) {
		return switch (random.nextInt(4)) {
			case 0 -> random.nextInt() / Math.pow(10, random.nextInt(8));
			case 1 -> (double) random.nextLong();
			case 2 -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(617) - 308);
			default -> Double.longBitsToDouble(random.nextLong());
		};
	}

	private static float anyFloat(Random random) {
		return switch (random.nextInt(4)) {
			case 0 -> (float) (random.nextInt() / Math.pow(10, random.nextInt(8)));
			case 1 -> (float) random.nextInt();
			case 2 -> (float) ((random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(77) - 38));
			default -> Float.intBitsToFloat(random.nextInt());
		};
	}

	private static void assertShortestRoundTrip(double value) {
		if (!Double.isFinite(value)) {
			return;
		}
		BigDecimal written = new BigDecimal(CanonicalNumbers.plain(value));
		assertThat(written.doubleValue()).as("%s written as %s", value, written).isEqualTo(value == 0 ? 0.0 : value);
		assertShortestAndClosest(written, new BigDecimal(value), (d) -> d.doubleValue() == value);
	}

	private static void assertShortestRoundTrip(float value) {
		if (!Float.isFinite(value)) {
			return;
		}
		BigDecimal written = new BigDecimal(CanonicalNumbers.plain(value));
		assertThat(written.floatValue()).as("%s written as %s", value, written).isEqualTo(value == 0 ? 0.0f : value);
		assertShortestAndClosest(written, new BigDecimal(value), (d) -> d.floatValue() == value);
	}

	private static void assertShortestAndClosest(BigDecimal written, BigDecimal exact,
			java.util.function.Predicate<BigDecimal> readsBack) {
		if (exact.signum() == 0) {
			assertThat(written.signum()).isZero();
			return;
		}
		int digits = written.stripTrailingZeros().precision();
		if (digits > 1) {
			// No decimal with one digit fewer reads back: neither neighbour of the exact value does.
			MathContext shorter = new MathContext(digits - 1, RoundingMode.FLOOR);
			assertThat(readsBack.test(exact.round(shorter))).isFalse();
			assertThat(readsBack.test(exact.round(new MathContext(digits - 1, RoundingMode.CEILING)))).isFalse();
		}
		BigDecimal closest = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
		if (readsBack.test(closest)) {
			assertThat(written.compareTo(closest)).isZero();
		}
	}

	@Test
	void valuesThatJdk17WritesTooLongAreShortest() {
		assertThat(CanonicalNumbers.plain(1.0E23)).isEqualTo("100000000000000000000000");
		assertThat(CanonicalNumbers.plain(2.0E23)).isEqualTo("200000000000000000000000");
		assertThat(CanonicalNumbers.plain(2.82879384806159E17)).isEqualTo("282879384806159000");
	}

	@Test
	void extremesAreWrittenPlain() {
		// Java writes 4.9E-324; ECMAScript and the specification write the single digit that reads back.
		assertThat(CanonicalNumbers.plain(Double.MIN_VALUE)).isEqualTo("0." + "0".repeat(323) + "5");
		assertThat(CanonicalNumbers.plain(Double.MAX_VALUE)).isEqualTo("17976931348623157" + "0".repeat(292));
		assertThat(CanonicalNumbers.plain(-0.0)).isEqualTo("0");
		assertThat(CanonicalNumbers.plain(-0.0f)).isEqualTo("0");
		assertThat(CanonicalNumbers.plain(0.1f)).isEqualTo("0.1");
		assertThat(CanonicalNumbers.plain(new BigDecimal("-12.340"))).isEqualTo("-12.34");
	}

}
