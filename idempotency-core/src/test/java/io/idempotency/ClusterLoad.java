package io.idempotency;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;

/**
 * Calls that several application instances make without pause, for the trials on database clusters: every thread
 * of every instance calls the same few keys of the current run (a new run every 100 ms), so that identical calls
 * meet on different instances, and different nodes, all the time. What each call was answered is counted.
 */
final class ClusterLoad implements AutoCloseable {

	private static final int KEYS_PER_RUN = 8;

	private static final long RUN_MILLIS = 100;

	final Map<String, AtomicInteger> effects = ClusterTools.newEffects();

	/** Keys a caller was answered with a replay for: their succeeded row was committed and read. */
	final Set<IdempotencyKey> replayed = ConcurrentHashMap.newKeySet();

	/** Every key called, with its run and slot. */
	final Map<IdempotencyKey, String[]> called = new ConcurrentHashMap<>();

	/** When each key was first called, in nanoseconds. */
	final Map<IdempotencyKey, Long> firstCalledAt = new ConcurrentHashMap<>();

	/** When each external reference took effect, in nanoseconds. */
	final Map<String, Queue<Long>> effectTimes = new ConcurrentHashMap<>();

	final AtomicLong calls = new AtomicLong();

	final AtomicLong results = new AtomicLong();

	final AtomicLong inProgress = new AtomicLong();

	final AtomicLong unavailable = new AtomicLong();

	final AtomicLong other = new AtomicLong();

	final Map<String, String> otherSamples = new ConcurrentHashMap<>();

	/** When a call last returned a result, in nanoseconds. */
	final AtomicLong lastResultAt = new AtomicLong();

	/** When a call last took effect (its claim won), in nanoseconds. */
	final AtomicLong lastEffectAt = new AtomicLong();

	private final List<ClusterInstance> instances = new ArrayList<>();

	private final String prefix;

	private ExecutorService pool;

	private volatile boolean running;

	ClusterLoad(String prefix, List<DataSource> dataSources) {
		this.prefix = prefix;
		for (DataSource dataSource : dataSources) {
			this.instances.add(new ClusterInstance(dataSource, this.effects, this.lastEffectAt, this.effectTimes, (call) -> {
				if (call.answer() == Answer.REPLAYED) {
					this.replayed.add(call.key());
				}
			}));
		}
	}

	/** Starts that many calling threads on each instance. */
	void start(int threadsPerInstance) {
		this.running = true;
		this.pool = Executors.newFixedThreadPool(threadsPerInstance * this.instances.size());
		for (int thread = 0; thread < threadsPerInstance * this.instances.size(); thread++) {
			ClusterInstance instance = this.instances.get(thread % this.instances.size());
			this.pool.submit(() -> {
				while (this.running) {
					call(instance);
				}
			});
		}
	}

	private void call(ClusterInstance instance) {
		String run = this.prefix + "-" + (System.currentTimeMillis() / RUN_MILLIS);
		String slot = "slot-" + ThreadLocalRandom.current().nextInt(KEYS_PER_RUN);
		IdempotencyKey key = key(run, slot);
		this.called.putIfAbsent(key, new String[] { run, slot });
		this.firstCalledAt.putIfAbsent(key, System.nanoTime());
		this.calls.incrementAndGet();
		try {
			instance.bookSlot(run, slot);
			this.results.incrementAndGet();
			this.lastResultAt.set(System.nanoTime());
		}
		catch (ToolCallInProgressException ex) {
			this.inProgress.incrementAndGet();
		}
		catch (LedgerUnavailableException ex) {
			this.unavailable.incrementAndGet();
		}
		catch (RuntimeException ex) {
			this.other.incrementAndGet();
			this.otherSamples.putIfAbsent(ex.getClass().getSimpleName(), String.valueOf(ex));
		}
	}

	/** Stops the calling threads and waits for them. */
	void stop() throws InterruptedException {
		this.running = false;
		this.pool.shutdown();
		if (!this.pool.awaitTermination(2, TimeUnit.MINUTES)) {
			throw new IllegalStateException("The calling threads did not stop");
		}
	}

	/** Keys executed more than once. */
	long duplicateEffects() {
		return this.effects.values().stream().filter((count) -> count.get() > 1).count();
	}

	/**
	 * Keys executed more times than the failovers between their first call and their last effect allow: once,
	 * plus once for each standby promoted meanwhile (which may not have had the claim).
	 * @param failoverAt when each standby was promoted, in nanoseconds
	 */
	List<IdempotencyKey> duplicatesNoFailoverExplains(List<Long> failoverAt) {
		List<IdempotencyKey> unexplained = new ArrayList<>();
		this.called.keySet().forEach((key) -> {
			String reference = key.externalReference("b");
			AtomicInteger count = this.effects.get(reference);
			if (count == null || count.get() < 2) {
				return;
			}
			long from = this.firstCalledAt.get(key);
			long to = this.effectTimes.get(reference).stream().mapToLong(Long::longValue).max().orElseThrow();
			long failovers = failoverAt.stream().filter((at) -> at > from && at < to).count();
			if (count.get() > 1 + failovers) {
				unexplained.add(key);
			}
		});
		return unexplained;
	}

	/**
	 * Each key executed more than once: when it was first called and when it took effect, in milliseconds from
	 * the first failover after its first call.
	 * @param failoverAt when each standby was promoted, in nanoseconds
	 */
	List<String> duplicateTimelines(List<Long> failoverAt) {
		List<String> timelines = new ArrayList<>();
		this.called.forEach((key, runAndSlot) -> {
			String reference = key.externalReference("b");
			AtomicInteger count = this.effects.get(reference);
			if (count == null || count.get() < 2) {
				return;
			}
			long from = this.firstCalledAt.get(key);
			long failover = failoverAt.stream().filter((at) -> at > from).findFirst().orElse(from);
			timelines.add(runAndSlot[0] + "/" + runAndSlot[1] + ": called at " + millisFrom(failover, from)
					+ " ms, took effect at " + this.effectTimes.get(reference).stream().map((at) -> millisFrom(failover, at)).toList()
					+ " ms from failover " + (failoverAt.indexOf(failover) + 1));
		});
		return timelines;
	}

	private static long millisFrom(long origin, long at) {
		return TimeUnit.NANOSECONDS.toMillis(at - origin);
	}

	/**
	 * After the cluster recovered: every key called is called once more, on each instance. A key whose claim was
	 * lost would execute again, and count as a duplicate effect.
	 */
	void callEveryKeyAgain() {
		for (String[] runAndSlot : this.called.values()) {
			for (ClusterInstance instance : this.instances) {
				try {
					instance.bookSlot(runAndSlot[0], runAndSlot[1]);
				}
				catch (ToolCallInProgressException ex) {
					// A call whose outcome was not written: the reconciler's to resolve, never executed again.
				}
			}
		}
	}

	/** Keys a replay read as succeeded whose row, read now on every instance, is not succeeded. */
	long lostOutcomes() {
		long lost = 0;
		for (IdempotencyKey key : this.replayed) {
			for (ClusterInstance instance : this.instances) {
				if (!instance.ledger().find(key).map(LedgerEntry::status).equals(java.util.Optional.of(LedgerStatus.SUCCEEDED))) {
					lost++;
					break;
				}
			}
		}
		return lost;
	}

	/** Rows left attempting: calls whose outcome could not be written, for the reconciler. */
	long leftAttempting(Function<IdempotencyKey, java.util.Optional<LedgerEntry>> find) {
		return this.called.keySet().stream()
			.filter((key) -> find.apply(key).map((entry) -> entry.status() == LedgerStatus.ATTEMPTING).orElse(false))
			.count();
	}

	ClusterInstance instance(int index) {
		return this.instances.get(index);
	}

	private static IdempotencyKey key(String run, String slot) {
		return IdempotencyKeys.derive("book_slot", Map.of("slot", slot), run);
	}

	@Override
	public void close() {
		this.running = false;
		if (this.pool != null) {
			this.pool.shutdownNow();
		}
		this.instances.forEach(ClusterInstance::close);
	}

}
