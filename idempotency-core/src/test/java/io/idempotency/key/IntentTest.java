package io.idempotency.key;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The decisions behind the key, each pinned by the example that motivates it. */
class IntentTest {

	private static final String RUN = "run-1";

	@Test
	void theSameRequestProducesTheSameKey() {
		// A key that hashed in the time (or anything random) would be unique, so every retry would
		// execute again and the deduplication rate would be exactly zero.
		String arguments = "{\"sku\":\"SKU-4411\"}";
		assertThat(IdempotencyKeys.derive("draft_quote", arguments, RUN))
			.isEqualTo(IdempotencyKeys.derive("draft_quote", arguments, RUN));
	}

	@Test
	void argumentOrderDoesNotChangeTheKey() {
		// A model that retries with {quantity, sku} where it first sent {sku, quantity} is making the
		// same call; if the order changed the key, deduplication would silently stop.
		assertThat(IdempotencyKeys.derive("draft_quote", "{\"sku\":\"SKU-4411\",\"quantity\":200}", RUN))
			.isEqualTo(IdempotencyKeys.derive("draft_quote", "{\"quantity\":200,\"sku\":\"SKU-4411\"}", RUN));
	}

	@Test
	void paddingAndNumberSpellingDoNotChangeTheKey() {
		assertThat(IdempotencyKeys.derive("draft_quote", "{ \"sku\" : \" SKU-4411\\n\", \"quantity\" : 2E+2 }", RUN))
			.isEqualTo(IdempotencyKeys.derive("draft_quote", "{\"quantity\":200,\"sku\":\"SKU-4411\"}", RUN));
	}

	/**
	 * A new run is a new intent. DO NOT "fix" this test by scoping keys to the user or the session.
	 * <p>
	 * A rep who opens a ticket for a recurring fault on Monday, and again on Tuesday, asked for two
	 * tickets: two runs, with identical arguments. If the key ignored the run, Tuesday's request would be
	 * answered with Monday's ticket and the fault would go untracked. Only repeats within one run (a
	 * retry, or the model calling the tool twice) are the same action.
	 */
	@Test
	void aNewRunIsANewIntent() {
		String arguments = "{\"accountName\":\"Henderson Industrial\",\"issue\":\"seal failure\"}";
		assertThat(IdempotencyKeys.derive("open_ticket", arguments, "monday-run"))
			.isNotEqualTo(IdempotencyKeys.derive("open_ticket", arguments, "tuesday-run"));
	}

	@Test
	void twoDifferentCallsInOneRunAreTwoIntents() {
		// "Check stock for SKU-4411 and SKU-4480": two calls, both must execute.
		assertThat(IdempotencyKeys.derive("check_inventory", "{\"sku\":\"SKU-4411\"}", RUN))
			.isNotEqualTo(IdempotencyKeys.derive("check_inventory", "{\"sku\":\"SKU-4480\"}", RUN));
	}

	@Test
	void theSameArgumentsToAnotherToolAreAnotherIntent() {
		String arguments = "{\"sku\":\"SKU-4411\"}";
		assertThat(IdempotencyKeys.derive("draft_quote", arguments, RUN))
			.isNotEqualTo(IdempotencyKeys.derive("send_quote", arguments, RUN));
	}

	@Test
	void theKeyIsSixtyFourLowercaseHexCharacters() {
		assertThat(IdempotencyKeys.derive("t", "{}", "r").value()).matches("[0-9a-f]{64}");
	}

}
