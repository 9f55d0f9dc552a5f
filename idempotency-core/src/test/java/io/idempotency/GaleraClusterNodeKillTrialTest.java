package io.idempotency;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.EnabledWithGaleraCluster;
import io.idempotency.testsupport.GaleraCluster;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One node of the MariaDB Galera cluster killed (SIGKILL) while three application instances, each on its own
 * node, call the same keys without pause; the node is started again and rejoins by state transfer. No key executes
 * twice and no outcome read as succeeded is lost. {@value #SHORT_TRIALS} kill with {@code -Pclusters},
 * {@value #LONG_TRIALS} with {@code -Pclusters,reliability}, each node in turn.
 */
@EnabledWithGaleraCluster
class GaleraClusterNodeKillTrialTest {

	private static final Logger logger = LoggerFactory.getLogger("io.idempotency.results");

	static final int SHORT_TRIALS = 1;

	static final int LONG_TRIALS = 9;

	private static final int THREADS_PER_INSTANCE = 8;

	@Test
	void aNodeKilledUnderLoadAndRejoinedNeverExecutesAKeyTwiceNorLosesAnOutcome() throws Exception {
		GaleraCluster cluster = GaleraCluster.shared();
		LedgerSchema.drop(cluster.dataSource(1), ClusterInstance.LEDGER_TABLE);
		LedgerSchema.create(cluster.dataSource(1), ClusterInstance.LEDGER_TABLE);
		int trials = "long".equals(System.getProperty("idempotency.reliability")) ? LONG_TRIALS : SHORT_TRIALS;
		List<DataSource> nodes = new ArrayList<>();
		for (int node = 1; node <= GaleraCluster.NODES; node++) {
			nodes.add(cluster.dataSource(node));
		}
		List<Long> rejoinMillis = new ArrayList<>();
		long started = System.nanoTime();
		try (ClusterLoad load = new ClusterLoad("galera-kill", nodes)) {
			load.start(THREADS_PER_INSTANCE);
			for (int trial = 1; trial <= trials; trial++) {
				int node = (trial - 1) % GaleraCluster.NODES + 1;
				awaitMoreResults(load, 2000);
				long pid = cluster.kill(node);
				logger.info("galera.trial {} killed node {} (pid {})", trial, node, pid);
				awaitMoreResults(load, 2000);
				long restart = System.nanoTime();
				cluster.restart(node);
				rejoinMillis.add(Duration.ofNanos(System.nanoTime() - restart).toMillis());
				logger.info("galera.trial {} node {} rejoined in {} ms", trial, node, rejoinMillis.get(trial - 1));
				awaitMoreResults(load, 2000);
			}
			load.stop();
			long callsUnderLoad = load.calls.get();
			load.callEveryKeyAgain();
			long duplicates = load.duplicateEffects();
			long lost = load.lostOutcomes();
			long attempting = load.leftAttempting((key) -> load.instance(0).ledger().find(key));
			logger.info("galera.kills trials={} calls={} results={} inProgress={} ledgerUnavailable={} other={}"
					+ " keys={} duplicateEffects={} lostOutcomes={} leftAttempting={} rejoinMillis={} seconds={} samples={}",
					trials, callsUnderLoad, load.results.get(), load.inProgress.get(), load.unavailable.get(),
					load.other.get(), load.called.size(), duplicates, lost, attempting, rejoinMillis,
					Duration.ofNanos(System.nanoTime() - started).toSeconds(), load.otherSamples);
			assertThat(duplicates).isZero();
			assertThat(lost).isZero();
		}
		finally {
			LedgerSchema.drop(cluster.dataSource(1), ClusterInstance.LEDGER_TABLE);
		}
	}

	static void awaitMoreResults(ClusterLoad load, long more) {
		long target = load.results.get() + more;
		await().atMost(Duration.ofMinutes(2)).until(() -> load.results.get() >= target);
	}

}
