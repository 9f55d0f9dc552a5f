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

	/**
	 * Many threads repeat the same few calls while flushes drain the counts: every replay is counted once, in one
	 * drain or another, none lost in a count already drained and none counted twice. Run many times.
	 */
	@Test
	void replaysRecordedByManyThreadsWhileCountsAreDrainedAreEachCountedOnce() throws Exception {
		int threads = 16;
		int replaysPerThread = 5_000;
		List<IdempotencyKey> keys = List.of(HELD, new IdempotencyKey("b".repeat(64)), new IdempotencyKey("c".repeat(64)));
		for (int round = 0; round < 40; round++) {
			ReplayCounter counter = new ReplayCounter(100);
			java.util.concurrent.ConcurrentHashMap<IdempotencyKey, Long> drained = new java.util.concurrent.ConcurrentHashMap<>();
			java.util.concurrent.atomic.AtomicBoolean recording = new java.util.concurrent.atomic.AtomicBoolean(true);
			Thread drainer = new Thread(() -> {
				while (recording.get()) {
					counter.drain().forEach((count) -> drained.merge(count.key(), count.replays(), Long::sum));
				}
			});
			drainer.start();
			java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
			java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
			List<java.util.concurrent.Future<?>> recorders = new java.util.ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int first = t;
				recorders.add(pool.submit(() -> {
					start.await();
					for (int n = 0; n < replaysPerThread; n++) {
						counter.record(keys.get((first + n) % keys.size()));
					}
					return null;
				}));
			}
			start.countDown();
			for (java.util.concurrent.Future<?> recorder : recorders) {
				recorder.get();
			}
			pool.shutdown();
			recording.set(false);
			drainer.join();
			counter.drain().forEach((count) -> drained.merge(count.key(), count.replays(), Long::sum));

			assertThat(drained.values().stream().mapToLong(Long::longValue).sum()).as("round %d", round)
				.isEqualTo((long) threads * replaysPerThread);
			assertThat(counter.dropped()).isZero();
			assertThat(counter.drain()).isEmpty();
		}
	}

	@Test
	void replaysOfMoreKeysThanTheCounterHoldsAreDroppedAndCountedAsDropped() {
		this.counter.restore(List.of(new ReplayCounter.Pending(new IdempotencyKey("d".repeat(64)), 4)));
		for (int n = 0; n < 12; n++) {
			this.counter.record(new IdempotencyKey(String.format("%064x", n)));
		}
		this.counter.record(new IdempotencyKey(String.format("%064x", 0)));

		assertThat(this.counter.dropped()).isEqualTo(3);
		List<ReplayCounter.Pending> drained = this.counter.drain();
		assertThat(drained).hasSize(10).contains(new ReplayCounter.Pending(new IdempotencyKey(String.format("%064x", 0)), 2));
		assertThat(drained.stream().mapToLong(ReplayCounter.Pending::replays).sum()).isEqualTo(4 + 9 + 1);
	}

}
