package io.idempotency.ledger;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.key.IdempotencyKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

class SettledOutcomesTest {

	private final AtomicLong now = new AtomicLong(1_000);

	private final SettledOutcomes outcomes = new SettledOutcomes(new ReplayCache(3, Duration.ofSeconds(10)),
			this.now::get);

	@Test
	void aKeptOutcomeIsFoundUntilItsTimeToLiveEnds() {
		LedgerEntry succeeded = entry(1, LedgerStatus.SUCCEEDED);
		this.outcomes.keep(succeeded);

		this.now.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
		assertThat(this.outcomes.find(succeeded.key())).isSameAs(succeeded);
		this.now.incrementAndGet();
		assertThat(this.outcomes.find(succeeded.key())).isNull();
	}

	@Test
	void keepingAnExpiredKeyAgainRenewsIt() {
		LedgerEntry succeeded = entry(1, LedgerStatus.SUCCEEDED);
		this.outcomes.keep(succeeded);
		this.now.addAndGet(Duration.ofSeconds(11).toNanos());

		this.outcomes.keep(succeeded);

		assertThat(this.outcomes.find(succeeded.key())).isSameAs(succeeded);
		assertThat(this.outcomes.size()).isEqualTo(1);
	}

	@Test
	void onlyASuccessIsKeptForEveryOtherStatusCanStillChange() {
		this.outcomes.keep(entry(1, LedgerStatus.ATTEMPTING));
		this.outcomes.keep(entry(2, LedgerStatus.UNKNOWN));
		// A reconciler's failure is overturned by a late success, on whichever instance the call ran.
		this.outcomes.keep(entry(3, LedgerStatus.FAILED));

		assertThat(this.outcomes.find(entry(1, LedgerStatus.ATTEMPTING).key())).isNull();
		assertThat(this.outcomes.find(entry(2, LedgerStatus.UNKNOWN).key())).isNull();
		assertThat(this.outcomes.find(entry(3, LedgerStatus.FAILED).key())).isNull();
		assertThat(this.outcomes.size()).isZero();
	}

	@Test
	void theOldestKeptIsTheFirstToGoWhenTheBoundIsReached() {
		for (int i = 1; i <= 5; i++) {
			this.outcomes.keep(entry(i, LedgerStatus.SUCCEEDED));
		}

		assertThat(this.outcomes.size()).isEqualTo(3);
		assertThat(this.outcomes.find(entry(1, LedgerStatus.SUCCEEDED).key())).isNull();
		assertThat(this.outcomes.find(entry(2, LedgerStatus.SUCCEEDED).key())).isNull();
		assertThat(this.outcomes.find(entry(5, LedgerStatus.SUCCEEDED).key())).isNotNull();
	}

	@Test
	void clearForgetsEverything() {
		this.outcomes.keep(entry(1, LedgerStatus.SUCCEEDED));

		this.outcomes.clear();

		assertThat(this.outcomes.find(entry(1, LedgerStatus.SUCCEEDED).key())).isNull();
		assertThat(this.outcomes.size()).isZero();
	}

	@Test
	void aCacheThatIsOffKeepsNothing() {
		SettledOutcomes off = new SettledOutcomes(ReplayCache.off());
		off.keep(entry(1, LedgerStatus.SUCCEEDED));

		assertThat(off.find(entry(1, LedgerStatus.SUCCEEDED).key())).isNull();
		assertThat(ReplayCache.off().enabled()).isFalse();
	}

	@Test
	void aCacheIsRefusedWithANegativeSizeOrNoTimeToLive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new ReplayCache(-1, Duration.ofMinutes(1)))
			.withMessage("maximumEntries must not be negative, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> new ReplayCache(10, Duration.ZERO))
			.withMessage("timeToLive must be positive, but was PT0S");
		assertThatNullPointerException().isThrownBy(() -> new ReplayCache(10, null)).withMessage("timeToLive");
	}

	private static LedgerEntry entry(int n, LedgerStatus status) {
		IdempotencyKey key = new IdempotencyKey(String.format("%064x", n));
		return new LedgerEntry(n, key, "r1", "user-a", "open_ticket", "{}", status, status.isUnsettled() ? null : "{}",
				null, Instant.EPOCH, status.isUnsettled() ? null : Instant.EPOCH, 0, 0, null);
	}

}
