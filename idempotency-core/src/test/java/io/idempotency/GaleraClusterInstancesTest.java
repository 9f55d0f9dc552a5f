package io.idempotency;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.testsupport.EnabledWithGaleraCluster;
import io.idempotency.testsupport.GaleraCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three application instances, each with its ledger on a different node of a MariaDB Galera cluster, call the
 * same tool with the same keys at the same time: every key executes once, whichever node each claim reaches
 * first, and every caller is answered with the one result or told the call is in progress.
 */
@EnabledWithGaleraCluster
class GaleraClusterInstancesTest {

	private static final Logger logger = LoggerFactory.getLogger("io.idempotency.results");

	private static final int THREADS_PER_INSTANCE = 16;

	private static final int ROUNDS = 25;

	private static final int KEYS_PER_ROUND = 8;

	private final Map<String, AtomicInteger> effects = ClusterTools.newEffects();

	private final List<ClusterInstance> instances = new ArrayList<>();

	@BeforeEach
	void startThreeInstances() {
		GaleraCluster cluster = GaleraCluster.shared();
		LedgerSchema.drop(cluster.dataSource(1), ClusterInstance.LEDGER_TABLE);
		LedgerSchema.create(cluster.dataSource(1), ClusterInstance.LEDGER_TABLE);
		for (int node = 1; node <= GaleraCluster.NODES; node++) {
			this.instances.add(new ClusterInstance(cluster.dataSource(node), this.effects));
		}
	}

	@AfterEach
	void stopInstances() {
		this.instances.forEach(ClusterInstance::close);
		LedgerSchema.drop(GaleraCluster.shared().dataSource(1), ClusterInstance.LEDGER_TABLE);
	}

	@Test
	void sixteenThreadsOnEachOfThreeNodesCallingTheSameKeysExecuteEachKeyOnce() throws Exception {
		int threads = THREADS_PER_INSTANCE * this.instances.size();
		CyclicBarrier roundStart = new CyclicBarrier(threads);
		Map<String, String> unexpected = new ConcurrentHashMap<>();
		AtomicLong results = new AtomicLong();
		AtomicLong inProgress = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> callers = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				ClusterInstance instance = this.instances.get(thread % this.instances.size());
				callers.add(pool.submit(() -> {
					List<String> slots = new ArrayList<>();
					for (int slot = 0; slot < KEYS_PER_ROUND; slot++) {
						slots.add("slot-" + slot);
					}
					for (int round = 0; round < ROUNDS; round++) {
						String run = "round-" + round;
						Collections.shuffle(slots, ThreadLocalRandom.current());
						roundStart.await(60, TimeUnit.SECONDS);
						for (String slot : slots) {
							String expected = reference(run, slot);
							try {
								String answer = instance.bookSlot(run, slot);
								if (!expected.equals(answer)) {
									unexpected.put(run + "/" + slot, "answered " + answer);
								}
								results.incrementAndGet();
							}
							catch (ToolCallInProgressException ex) {
								inProgress.incrementAndGet();
							}
							catch (RuntimeException ex) {
								unexpected.put(run + "/" + slot, String.valueOf(ex));
							}
						}
					}
					return null;
				}));
			}
			for (Future<?> caller : callers) {
				caller.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			pool.shutdownNow();
		}
		logger.info("galera.instances calls={} results={} inProgress={} keys={} unexpected={}",
				(long) threads * ROUNDS * KEYS_PER_ROUND, results.get(), inProgress.get(), this.effects.size(),
				unexpected.size());

		assertThat(unexpected).isEmpty();
		assertThat(this.effects).hasSize(ROUNDS * KEYS_PER_ROUND);
		assertThat(this.effects.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(results.get() + inProgress.get()).isEqualTo((long) threads * ROUNDS * KEYS_PER_ROUND);
		// Every node holds every key's outcome.
		for (ClusterInstance instance : this.instances) {
			for (int round = 0; round < ROUNDS; round++) {
				for (int slot = 0; slot < KEYS_PER_ROUND; slot++) {
					assertThat(instance.ledger()
						.find(IdempotencyKeys.derive("book_slot", Map.of("slot", "slot-" + slot), "round-" + round))
						.orElseThrow()
						.status()).isEqualTo(LedgerStatus.SUCCEEDED);
				}
			}
		}
	}

	private static String reference(String run, String slot) {
		return IdempotencyKeys.derive("book_slot", Map.of("slot", slot), run).externalReference("b");
	}

}
