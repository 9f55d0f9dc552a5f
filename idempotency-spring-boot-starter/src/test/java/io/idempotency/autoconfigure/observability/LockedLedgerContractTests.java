package io.idempotency.autoconfigure.observability;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.observability.IdempotencyEndpointWebExtension.Unavailable;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Health, the gauge and the endpoint while the ledger's table is locked (a migration's uncommitted
 * {@code ALTER TABLE}, a {@code VACUUM FULL}, a {@code LOCK TABLE}): every probe answers within the timeout, one
 * connection at most reads the counts however many probes arrive, the application's pool keeps connections to
 * give, and once the lock is released the probes read fresh counts. A subclass names the database and how its
 * table is locked. H2 has none: no lock of its holds a plain read of the table, except its exclusive mode, which
 * holds every statement of other connections (the connection check of each probe too) and no timeout interrupts.
 */
abstract class LockedLedgerContractTests {

	static final String TABLE = "tool_audit_locked";

	/** Probes at once, as a platform's probes, a load balancer's and a dashboard's pile up behind a lock. */
	private static final int PROBES = 32;

	private static final int ROUNDS = 3;

	/**
	 * The pool the application's ledger uses, as small as a real one is busy: one connection the heartbeat keeps,
	 * one for the reading, two for the probes' checks that the database answers.
	 */
	private static final int POOL_SIZE = 4;

	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	/** How long after the timeout a probe may still answer: the driver's cancel and the scheduler's slack. */
	private static final Duration SLACK = Duration.ofSeconds(2);

	/** A lock on the ledger's table held by another connection, released by {@link #close()}. */
	interface Lock extends AutoCloseable {

		@Override
		void close() throws SQLException;

	}

	/** The database's shared pool: the table is created and locked through it, outside the application's pool. */
	abstract DataSource database();

	/** Locks the table on a connection of the shared pool, as a migration would, until the lock is closed. */
	abstract Lock lock(DataSource database, String table) throws SQLException;

	private final ExecutorService probes = Executors.newFixedThreadPool(PROBES);

	@AfterEach
	void dropTheTable() {
		this.probes.shutdownNow();
		LedgerSchema.drop(database(), TABLE);
	}

	private ApplicationContextRunner runner(DataSource pool) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class,
					IdempotencyHealthAutoConfiguration.class))
			.withBean(DataSource.class, () -> pool)
			.withPropertyValues("idempotency.jdbc.table-name=" + TABLE, "idempotency.jdbc.initialize-schema=always",
					"management.endpoints.web.exposure.include=idempotency", "idempotency.health.cache-for=0s",
					"idempotency.health.timeout=" + TIMEOUT.toSeconds() + "s");
	}

	@Test
	void probesWhileTheTableIsLockedAnswerWithinTheTimeoutOnOneConnectionAndReadFreshCountsOnceItIsReleased()
			throws Exception {
		Pool pool = new Pool(database(), POOL_SIZE);
		runner(pool).run((context) -> {
			assertThat(context).hasNotFailed();
			IdempotencyHealthIndicator health = context.getBean(IdempotencyHealthIndicator.class);

			// Locked before any reading: no count to answer from.
			try (Lock lock = lock(database(), TABLE)) {
				for (Health probe : probeAtOnce(health, pool)) {
					assertThat(probe.getStatus()).as("%s", probe.getDetails()).isEqualTo(Status.UNKNOWN);
					assertThat(String.valueOf(probe.getDetails().get("problems")))
						.contains("did not answer within PT1S (idempotency.health.timeout)");
				}
			}
			claim("r1");
			await().untilAsserted(() -> assertThat(health.health().getDetails()).containsEntry("calls", 1L)
				.doesNotContainKey("stale"));

			// Locked after a reading: every probe answers from it, none is DOWN.
			try (Lock lock = lock(database(), TABLE)) {
				List<Health> answers = new ArrayList<>();
				for (int round = 0; round < ROUNDS; round++) {
					answers.addAll(probeAtOnce(health, pool));
				}
				assertThat(answers).allSatisfy((probe) -> {
					assertThat(probe.getStatus()).as("%s", probe.getDetails()).isEqualTo(Status.UP);
					assertThat(probe.getDetails()).containsEntry("calls", 1L);
				});
				assertThat(answers).filteredOn((probe) -> probe.getDetails().containsKey("stale"))
					.isNotEmpty()
					.allSatisfy((probe) -> assertThat(probe.getDetails()).containsEntry("warning", true)
						.containsKey("readAgo"));

				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(within(() -> registry.get("idempotency.ledger.awaiting.human").gauge().value()))
					.isNaN();
				IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
				assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> within(endpoint::report))
					.withMessageContaining("did not answer within PT1S");
				WebEndpointResponse<Object> overHttp = within(
						context.getBean(IdempotencyEndpointWebExtension.class)::report);
				assertThat(overHttp.getStatus()).as("over HTTP: the ledger cannot be read now").isEqualTo(503);
				assertThat(overHttp.getBody()).asInstanceOf(InstanceOfAssertFactories.type(Unavailable.class))
					.satisfies((unavailable) -> {
						assertThat(unavailable.unavailable()).isEqualTo("ledger_not_answering");
						assertThat(unavailable.message()).contains("did not answer within PT1S");
					});
				// The readings' own threads: the maintenance's ("idempotency-1", ...) hold the heartbeat's connection
				// beside what their other tasks take.
				assertThat(pool.mostHeldBy("idempotency-health")).as("connections reading health's counts at once")
					.isEqualTo(1);
				assertThat(pool.mostHeldBy("idempotency-gauge")).as("connections reading the gauge's count at once")
					.isEqualTo(1);
			}

			claim("r2");
			await().untilAsserted(() -> assertThat(health.health().getDetails()).containsEntry("calls", 2L)
				.containsEntry("warning", false)
				.doesNotContainKey("stale"));
			assertThat(context.getBean(MeterRegistry.class).get("idempotency.ledger.awaiting.human").gauge().value())
				.isZero();
			assertThat(context.getBean(IdempotencyEndpoint.class).report().replays().calls()).isEqualTo(2);
		});
	}

	/** Many probes at once; each answers within the timeout and its slack, and the pool still gives a connection. */
	private List<Health> probeAtOnce(IdempotencyHealthIndicator health, Pool pool) throws Exception {
		CyclicBarrier start = new CyclicBarrier(PROBES);
		List<Future<Health>> answers = new ArrayList<>();
		for (int i = 0; i < PROBES; i++) {
			answers.add(this.probes.submit(() -> {
				start.await();
				return within(health::health);
			}));
		}
		List<Health> answered = new ArrayList<>();
		for (Future<Health> answer : answers) {
			answered.add(answer.get(TIMEOUT.plus(SLACK).multipliedBy(4).toMillis(), TimeUnit.MILLISECONDS));
		}
		try (Connection connection = pool.getConnection()) {
			assertThat(connection.isValid(1)).as("the pool still gives a connection").isTrue();
		}
		return answered;
	}

	/** What the action returns, which it must within the timeout and its slack. */
	private static <T> T within(java.util.concurrent.Callable<T> action) throws Exception {
		long started = System.nanoTime();
		try {
			return action.call();
		}
		finally {
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("answered within the timeout")
				.isLessThanOrEqualTo(TIMEOUT.plus(SLACK));
		}
	}

	private void claim(String runId) {
		String arguments = "{\"issue\":\"seal failure\"}";
		new JdbcLedger(database(), TABLE, Redaction.defaults())
			.claim(new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, runId), runId, "rep-1", "open_ticket",
					arguments));
	}

	/**
	 * A pool of a few connections taken from the shared one, as an application's: a caller waits at most five
	 * seconds for one, then fails as an exhausted pool does. It remembers how many connections the threads of each
	 * name held at once.
	 */
	static final class Pool extends DelegatingDataSource {

		private final Semaphore free;

		private final Map<String, AtomicInteger> held = new ConcurrentHashMap<>();

		private final Map<String, AtomicInteger> most = new ConcurrentHashMap<>();

		Pool(DataSource database, int size) {
			super(database);
			this.free = new Semaphore(size);
		}

		@Override
		public Connection getConnection() throws SQLException {
			try {
				if (!this.free.tryAcquire(5, TimeUnit.SECONDS)) {
					throw new SQLException("The pool has no connection to give within 5s");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException(ex);
			}
			Connection connection;
			try {
				connection = super.getConnection();
			}
			catch (SQLException | RuntimeException ex) {
				this.free.release();
				throw ex;
			}
			String thread = Thread.currentThread().getName();
			int now = this.held.computeIfAbsent(thread, (name) -> new AtomicInteger()).incrementAndGet();
			this.most.computeIfAbsent(thread, (name) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
			AtomicBoolean closed = new AtomicBoolean();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, arguments) -> {
						if (method.getName().equals("close") && closed.compareAndSet(false, true)) {
							this.held.get(thread).decrementAndGet();
							this.free.release();
						}
						try {
							return method.invoke(connection, arguments);
						}
						catch (java.lang.reflect.InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

		/** The most connections held at once by the threads whose names start so. */
		int mostHeldBy(String threadPrefix) {
			// Each reading runs on a thread of its own: those of one name never overlap when one runs at a time.
			return this.most.entrySet()
				.stream()
				.filter((entry) -> entry.getKey().startsWith(threadPrefix))
				.mapToInt((entry) -> entry.getValue().get())
				.max()
				.orElse(0);
		}

	}

}
