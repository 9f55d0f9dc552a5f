package io.idempotency.test;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-memory ledger writes an outcome to the row its claim won, as the JDBC ledger does. */
class InMemoryLedgerTest {

	private static final String ARGUMENTS = "{\"parcel\":\"P-1\"}";

	private final InMemoryLedger ledger = new InMemoryLedger();

	private final ClaimRequest request = new ClaimRequest(IdempotencyKeys.derive("book_courier", ARGUMENTS, "r1"), "r1",
			"rep-1", "book_courier", ARGUMENTS);

	@Test
	void anOutcomeIsNeverWrittenToTheRowOfALaterClaimOfTheSameKey() {
		Claim.Won first = (Claim.Won) this.ledger.claim(this.request);
		// The first call's row is forgotten while it runs, and the key claimed again.
		this.ledger.clear();
		Claim.Won second = (Claim.Won) this.ledger.claim(this.request);
		assertThat(second.rowId()).isNotEqualTo(first.rowId());

		assertThat(this.ledger.recordFailed(first, "the courier refused the parcel")).isFalse();

		assertThat(row()).satisfies((row) -> {
			assertThat(row.id()).isEqualTo(second.rowId());
			assertThat(row.status()).as("the second call, still running").isEqualTo(LedgerStatus.ATTEMPTING);
		});
		assertThat(this.ledger.recordSucceeded(second, "\"booked\"")).isTrue();
		assertThat(row().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(this.ledger.claim(this.request)).isInstanceOf(Claim.Replay.class);
	}

	@Test
	void aSecondOutcomeOfOneClaimIsNotWritten() {
		Claim.Won won = (Claim.Won) this.ledger.claim(this.request);

		assertThat(this.ledger.recordFailed(won, "declined")).isTrue();
		assertThat(this.ledger.recordSucceeded(won, "\"booked\"")).isFalse();

		assertThat(row().status()).isEqualTo(LedgerStatus.FAILED);
	}

	private LedgerEntry row() {
		return this.ledger.find(this.request.key()).orElseThrow();
	}

}
