package io.idempotency;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.EnabledWithPatroniCluster;
import io.idempotency.testsupport.PatroniCluster;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The primary of the Patroni cluster killed (Patroni and PostgreSQL, SIGKILL) while three application instances
 * call the same keys through the multi-host URL, or through HAProxy (which checks each node's Patroni REST API
 * and leads to the primary alone); Patroni promotes a standby, and the killed node rejoins as a standby. With
 * {@code synchronous_mode} (strict: no commit without a synchronous standby, not even just after a
 * promotion) no key executes twice and no outcome read as succeeded is lost. With asynchronous replication a
 * claim the killed primary committed but had not yet sent leaves its key free on the promoted standby, where a
 * repeat executes it again: a key may execute once more for each failover between its first call and its last
 * effect, never twice on one primary. The failovers are read from the timeline history, so that one Patroni
 * makes of its own accord (a leader that could not renew its lease in time on a loaded machine) is counted too.
 * Through HAProxy the calls reach the new primary only once its checks pass, and the connections to the killed
 * one are cut once its checks fail. {@value #SHORT_TRIALS} failover in each mode and route with
 * {@code -Pclusters}, {@value #LONG_TRIALS} with {@code -Pclusters,reliability}. The asynchronous cluster runs
 * last: it takes the ports of the shared one, which is stopped for it.
 */
@EnabledWithPatroniCluster
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PatroniClusterFailoverTrialTest {

	private static final Logger logger = LoggerFactory.getLogger("io.idempotency.results");

	static final int SHORT_TRIALS = 1;

	static final int LONG_TRIALS = 9;

	private static final int THREADS_PER_INSTANCE = 8;

	/** How the instances reach the primary. */
	enum Route {

		/** pgJDBC's multi-host URL with {@code targetServerType=primary}. */
		MULTI_HOST_URL {
			@Override
			DataSource dataSource(PatroniCluster cluster) {
				return cluster.dataSource();
			}
		},

		/** HAProxy, whose checks of Patroni's REST API find the primary. */
		HAPROXY {
			@Override
			DataSource dataSource(PatroniCluster cluster) {
				return cluster.dataSourceThroughHaproxy();
			}
		};

		abstract DataSource dataSource(PatroniCluster cluster);

	}

	@Test
	@Order(1)
	void aPrimaryKilledUnderLoadWithSynchronousReplicationNeverExecutesAKeyTwiceNorLosesAnOutcome() throws Exception {
		Figures figures = trials(PatroniCluster.shared(), Route.MULTI_HOST_URL, "synchronous");
		assertThat(figures.duplicates()).isZero();
		assertThat(figures.lost()).isZero();
	}

	@Test
	@Order(2)
	void aPrimaryKilledUnderLoadThroughHaproxyWithSynchronousReplicationNeverExecutesAKeyTwiceNorLosesAnOutcome()
			throws Exception {
		Figures figures = trials(PatroniCluster.shared(), Route.HAPROXY, "synchronous-haproxy");
		assertThat(figures.duplicates()).isZero();
		assertThat(figures.lost()).isZero();
	}

	@Test
	@Order(3)
	void aPrimaryKilledUnderLoadWithAsynchronousReplicationExecutesAgainOnlyKeysWhoseClaimTheFailoverLost()
			throws Exception {
		PatroniCluster.stopShared();
		PatroniCluster cluster = PatroniCluster.started(false);
		try {
			Figures figures = trials(cluster, Route.MULTI_HOST_URL, "asynchronous");
			// A claim committed on the killed primary that no standby had yet is lost: its key may execute again,
			// but only across a failover, never twice on one primary.
			assertThat(figures.unexplained()).isEmpty();
		}
		finally {
			cluster.stop();
		}
	}

	record Figures(long duplicates, long lost, List<IdempotencyKey> unexplained) {
	}

	private Figures trials(PatroniCluster cluster, Route route, String mode) throws Exception {
		DataSource dataSource = route.dataSource(cluster);
		LedgerSchema.drop(dataSource, ClusterInstance.LEDGER_TABLE);
		LedgerSchema.create(dataSource, ClusterInstance.LEDGER_TABLE);
		int trials = "long".equals(System.getProperty("idempotency.reliability")) ? LONG_TRIALS : SHORT_TRIALS;
		List<Long> newPrimaryMillis = new ArrayList<>();
		List<Long> haproxyMillis = new ArrayList<>();
		List<Long> promotedMillis = new ArrayList<>();
		List<Long> rejoinMillis = new ArrayList<>();
		long started = System.nanoTime();
		Instant startedAt = Instant.now();
		int failoversBefore = cluster.failovers().size();
		try (ClusterLoad load = new ClusterLoad("patroni-" + mode,
				List.of(dataSource, dataSource, dataSource))) {
			load.start(THREADS_PER_INSTANCE);
			for (int trial = 1; trial <= trials; trial++) {
				GaleraClusterNodeKillTrialTest.awaitMoreResults(load, 2000);
				int primary = cluster.primary().orElseThrow();
				long killed = System.nanoTime();
				cluster.kill(primary);
				await().atMost(Duration.ofMinutes(2))
					.until(() -> cluster.primary().isPresent() && cluster.primary().getAsInt() != primary);
				newPrimaryMillis.add(Duration.ofNanos(System.nanoTime() - killed).toMillis());
				logger.info("patroni.trial {} ({}): node {} is the primary, the members are {}, HAProxy leads to {}",
						trial, mode, cluster.primary().orElse(0), cluster.members(), cluster.nodesHaproxyRoutesTo());
				if (route == Route.HAPROXY) {
					// When HAProxy leads to the new primary alone: its checks passed there, and failed on the killed
					// node. No call reaches the new primary before.
					await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
						.until(() -> cluster.nodesHaproxyRoutesTo().equals(Set.of(cluster.primary().orElse(0))));
					haproxyMillis.add(Duration.ofNanos(System.nanoTime() - killed).toMillis());
				}
				await().atMost(Duration.ofMinutes(2)).until(() -> load.lastEffectAt.get() > killed);
				promotedMillis.add(Duration.ofNanos(load.lastEffectAt.get() - killed).toMillis());
				long restart = System.nanoTime();
				cluster.restart(primary);
				rejoinMillis.add(Duration.ofNanos(System.nanoTime() - restart).toMillis());
				logger.info("patroni.trial {} ({}) killed node {}: new primary after {} ms, HAProxy led to it after {} ms,"
						+ " a call executed again after {} ms, rejoined in {} ms", trial, mode, primary,
						newPrimaryMillis.get(trial - 1), (route == Route.HAPROXY) ? haproxyMillis.get(trial - 1) : "-",
						promotedMillis.get(trial - 1), rejoinMillis.get(trial - 1));
			}
			load.stop();
			long callsUnderLoad = load.calls.get();
			load.callEveryKeyAgain();
			long duplicates = load.duplicateEffects();
			long lost = load.lostOutcomes();
			// Every failover since the trial began, as the timeline history has them: the kills', and any Patroni made
			// of its own accord (a leader that could not renew its lease in time on a loaded machine).
			await().atMost(Duration.ofSeconds(30)).until(() -> cluster.failovers().size() >= failoversBefore + trials);
			List<Long> failoverAt = cluster.failovers()
				.stream()
				.skip(failoversBefore)
				.map((at) -> started + Duration.between(startedAt, at).toNanos())
				.toList();
			List<IdempotencyKey> unexplained = load.duplicatesNoFailoverExplains(failoverAt);
			long attempting = load.leftAttempting((key) -> load.instance(0).ledger().find(key));
			logger.info("patroni.failovers mode={} trials={} calls={} results={} inProgress={} ledgerUnavailable={}"
					+ " other={} keys={} failovers={} duplicateEffects={} unexplainedDuplicates={} lostOutcomes={} leftAttempting={} newPrimaryMillis={} haproxyMillis={}"
					+ " executedAgainMillis={} rejoinMillis={} seconds={} samples={} duplicates={}", mode, trials, callsUnderLoad, load.results.get(),
					load.inProgress.get(), load.unavailable.get(), load.other.get(), load.called.size(), failoverAt.size(), duplicates, unexplained.size(), lost,
					attempting, newPrimaryMillis, haproxyMillis, promotedMillis, rejoinMillis, Duration.ofNanos(System.nanoTime() - started).toSeconds(),
					load.otherSamples, load.duplicateTimelines(failoverAt));
			return new Figures(duplicates, lost, unexplained);
		}
		finally {
			LedgerSchema.drop(dataSource, ClusterInstance.LEDGER_TABLE);
		}
	}

}
