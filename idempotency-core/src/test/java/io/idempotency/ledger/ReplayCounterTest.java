package io.idempotency.ledger;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.key.IdempotencyKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReplayCounterTest {

	private static final IdempotencyKey HELD = new IdempotencyKey("a".repeat(64));

	private final AtomicLong now = new AtomicLong(1_000);

	private final ReplayCounter counter = new ReplayCounter(10, Duration.ofHours(1), this.now::get);

	@Test
	void aCountNoFlushCouldWriteIsKeptWithTheReplaysRecordedMeanwhile() {
		this.counter.record(HELD);
		this.counter.record(HELD);
		this.counter.keepUnwritten(this.counter.drain());
		this.counter.record(HELD);

		assertThat(this.counter.drain()).containsExactly(new ReplayCounter.Pending(HELD, 3));
		assertThat(this.counter.dropped()).isZero();
	}

	@Test
	void aCountNoFlushHasWrittenForAnHourIsDroppedAndCountedAsDropped() {
		this.counter.record(HELD);
		this.counter.record(HELD);
		this.counter.keepUnwritten(this.counter.drain());
		this.now.addAndGet(Duration.ofHours(1).toNanos() - 1);
		this.counter.keepUnwritten(this.counter.drain());
		assertThat(this.counter.dropped()).isZero();

		this.now.incrementAndGet();
		this.counter.keepUnwritten(this.counter.drain());

		assertThat(this.counter.drain()).isEmpty();
		assertThat(this.counter.dropped()).isEqualTo(2);
	}

	@Test
	void aCountWrittenAtLastIsGivenAFullHourTheNextTimeItsRowIsHeld() {
		this.counter.record(HELD);
		this.counter.keepUnwritten(this.counter.drain());
		this.now.addAndGet(Duration.ofMinutes(59).toNanos());
		this.counter.written(this.counter.drain());

		this.counter.record(HELD);
		this.counter.keepUnwritten(this.counter.drain());
		this.now.addAndGet(Duration.ofMinutes(59).toNanos());
		this.counter.keepUnwritten(this.counter.drain());

		assertThat(this.counter.drain()).containsExactly(new ReplayCounter.Pending(HELD, 1));
	}

	@Test
	void countsPutBackAfterAFailedFlushAreKeptWhateverTheirAge() {
		this.counter.record(HELD);
		List<ReplayCounter.Pending> failed = this.counter.drain();
		this.now.addAndGet(Duration.ofDays(1).toNanos());

		this.counter.restore(failed);

		assertThat(this.counter.drain()).containsExactly(new ReplayCounter.Pending(HELD, 1));
	}

}
