package io.idempotency.testsupport;

import java.security.SecureRandom;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Checks a property over many generated cases. Each case draws from its own seeded {@link Random}; a
 * failing case is reported with its seed, and running the tests again with
 * {@code -Didempotency.test.seed=<seed>} makes that case the first one tried, so every failure can be
 * replayed exactly.
 *
 * <pre>
 * PropertyCheck.forAll(1000, (random) -&gt; assertThat(...));
 * </pre>
 */
public final class PropertyCheck {

	/** The system property that fixes the seed of the first case. */
	public static final String SEED_PROPERTY = "idempotency.test.seed";

	/** Spreads the seeds of consecutive cases over the whole range (the golden-ratio increment). */
	private static final long SEED_STEP = 0x9E3779B97F4A7C15L;

	private PropertyCheck() {
	}

	/**
	 * Runs the property once per try, each with a new seeded random source.
	 * @param tries how many cases to try, at least one
	 * @param property the check; it fails by throwing, as assertions do
	 * @throws AssertionError naming the try and its seed, with the property's failure as its cause
	 */
	public static void forAll(int tries, Consumer<Random> property) {
		if (tries < 1) {
			throw new IllegalArgumentException("tries must be at least 1, but was " + tries);
		}
		long seed = firstSeed();
		for (int i = 0; i < tries; i++) {
			try {
				property.accept(new Random(seed));
			}
			catch (AssertionError | RuntimeException ex) {
				throw new AssertionError("Property failed on try " + (i + 1) + " of " + tries + " with seed " + seed
						+ "; run again with -D" + SEED_PROPERTY + "=" + seed + " to try that case first: " + ex.getMessage(),
						ex);
			}
			seed += SEED_STEP;
		}
	}

	private static long firstSeed() {
		String fixed = System.getProperty(SEED_PROPERTY);
		if (fixed != null && !fixed.isBlank()) {
			try {
				return Long.parseLong(fixed.trim());
			}
			catch (NumberFormatException ex) {
				throw new IllegalArgumentException(SEED_PROPERTY + " must be a whole number, but was '" + fixed + "'", ex);
			}
		}
		return new SecureRandom().nextLong();
	}

}
