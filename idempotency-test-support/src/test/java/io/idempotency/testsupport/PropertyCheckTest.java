package io.idempotency.testsupport;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class PropertyCheckTest {

	@AfterEach
	void forgetSeed() {
		System.clearProperty(PropertyCheck.SEED_PROPERTY);
	}

	@Test
	void everyTryRunsWithItsOwnSource() {
		List<Long> draws = new ArrayList<>();
		PropertyCheck.forAll(50, (random) -> draws.add(random.nextLong()));
		assertThat(draws).hasSize(50).doesNotHaveDuplicates();
	}

	@Test
	void aFailureNamesTheSeedThatReplaysIt() {
		List<Long> seen = new ArrayList<>();
		AssertionError failure = catchFailure(() -> PropertyCheck.forAll(1000, (random) -> {
			long drawn = random.nextLong();
			seen.add(drawn);
			assertThat(seen).hasSizeLessThan(7);
		}));
		assertThat(failure).hasMessageContaining("try 7 of 1000");
		String seed = failure.getMessage().replaceAll("(?s).*-D" + PropertyCheck.SEED_PROPERTY + "=(-?\\d+).*", "$1");

		System.setProperty(PropertyCheck.SEED_PROPERTY, seed);
		List<Long> replayed = new ArrayList<>();
		PropertyCheck.forAll(1, (random) -> replayed.add(random.nextLong()));

		assertThat(replayed).containsExactly(seen.get(6));
	}

	@Test
	void badSettingsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> PropertyCheck.forAll(0, (random) -> { }))
			.withMessageContaining("tries");
		System.setProperty(PropertyCheck.SEED_PROPERTY, "abc");
		assertThatIllegalArgumentException().isThrownBy(() -> PropertyCheck.forAll(1, (random) -> { }))
			.withMessageContaining("'abc'");
	}

	private static AssertionError catchFailure(Runnable check) {
		try {
			check.run();
		}
		catch (AssertionError ex) {
			return ex;
		}
		throw new AssertionError("the property did not fail");
	}

}
