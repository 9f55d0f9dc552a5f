package io.idempotency.key;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binary floating-point values become the shortest decimal that reads back as the same value, and the
 * closest such decimal where several are equally short (as ECMAScript's Number::toString and Java 19's
 * Double.toString do; Java 17's does not).
 */
class CanonicalNumbersTest {

	@Property(tries = 1000)
	void aDoubleBecomesItsShortestRoundTripDecimal(@ForAll double value) {
		if (!Double.isFinite(value)) {
			return;
		}
		BigDecimal written = new BigDecimal(CanonicalNumbers.plain(value));
		assertThat(written.doubleValue()).isEqualTo(value == 0 ? 0.0 : value);
		assertShortestAndClosest(written, new BigDecimal(value), (d) -> d.doubleValue() == value);
	}

	@Property(tries = 1000)
	void aFloatBecomesItsShortestRoundTripDecimal(@ForAll float value) {
		if (!Float.isFinite(value)) {
			return;
		}
		BigDecimal written = new BigDecimal(CanonicalNumbers.plain(value));
		assertThat(written.floatValue()).isEqualTo(value == 0 ? 0.0f : value);
		assertShortestAndClosest(written, new BigDecimal(value), (d) -> d.floatValue() == value);
	}

	@Property(tries = 1000)
	void anyDoubleBitPatternBecomesItsShortestRoundTripDecimal(@ForAll long bits) {
		aDoubleBecomesItsShortestRoundTripDecimal(Double.longBitsToDouble(bits));
	}

	@Property(tries = 1000)
	void subnormalDoublesBecomeTheirShortestRoundTripDecimal(@ForAll @LongRange(min = 1, max = 1 << 20) long bits) {
		aDoubleBecomesItsShortestRoundTripDecimal(Double.longBitsToDouble(bits));
	}

	@Property(tries = 1000)
	void subnormalFloatsBecomeTheirShortestRoundTripDecimal(@ForAll @IntRange(min = 1, max = 1 << 16) int bits) {
		aFloatBecomesItsShortestRoundTripDecimal(Float.intBitsToFloat(bits));
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
