package io.idempotency.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.IdempotentTool;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.observability.IdempotencyEndpoint;
import io.idempotency.autoconfigure.observability.IdempotencyHealthIndicator;
import io.idempotency.autoconfigure.observability.IdempotencyHealthAutoConfiguration;
import io.idempotency.autoconfigure.observability.IdempotencyMetricsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** The starter on a real PostgreSQL: the background reconciler, health, the endpoint and metrics. */
class PostgresqlStarterTest {

	private static final String TABLE = "tool_audit_starter_test";

	private static DataSource postgres() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	/** How often each key was reconciled, across every application context of a test. */
	static final Map<String, AtomicInteger> reconciliations = new ConcurrentHashMap<>();

	/** Holds every reconcile method until a test opens it. */
	static volatile CountDownLatch gate = new CountDownLatch(0);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
				ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
				IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DelegatingDataSource(postgres()))
		.withBean(TicketTool.class)
		.withPropertyValues("idempotency.jdbc.table-name=" + TABLE, "idempotency.jdbc.initialize-schema=always",
				"management.endpoints.web.exposure.include=idempotency");

	public static class TicketTool {

		private final AtomicInteger opened = new AtomicInteger();

		@IdempotentTool(name = "open_ticket", reconcile = "findTicket")
		public String openTicket(String issue) {
			return "T-" + this.opened.incrementAndGet();
		}

		public int opened() {
			return this.opened.get();
		}

		Reconciliation<String> findTicket(IdempotencyKey key) throws InterruptedException {
			assertThat(gate.await(60, TimeUnit.SECONDS)).as("the gate opened").isTrue();
			reconciliations.computeIfAbsent(key.value(), (k) -> new AtomicInteger()).incrementAndGet();
			return Reconciliation.found("T-reconciled");
		}

	}

	@BeforeEach
	@AfterEach
	void dropTable() {
		LedgerSchema.drop(postgres(), TABLE);
		reconciliations.clear();
	}

	private static String open(AssertableApplicationContext context, String runId) {
		return RunContext.supply(new Run(runId, "rep-1"), () -> context.getBean(TicketTool.class).openTicket("seal failure"));
	}

	@Test
	void twoApplicationsOnOneDatabaseNeverReconcileACallTwice() throws Exception {
		LedgerSchema.create(postgres(), TABLE);
		JdbcLedger crashed = new JdbcLedger(postgres(), TABLE, io.idempotency.ledger.Redaction.defaults());
		int calls = 30;
		for (int i = 0; i < calls; i++) {
			String arguments = "{\"issue\":\"seal failure " + i + "\"}";
			crashed.claim(new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, "run-" + i), "run-" + i,
					"rep-1", "open_ticket", arguments));
		}
		ApplicationContextRunner fast = this.runner.withPropertyValues("idempotency.reconciler.interval=10ms",
				"idempotency.reconciler.stale-after=2ms", "idempotency.heartbeat.interval=1ms",
				"idempotency.reconciler.batch-size=4");
		JdbcTemplate jdbc = new JdbcTemplate(postgres());
		gate = new CountDownLatch(1);
		fast.run((first) -> fast.run((second) -> {
			// Both applications hold leases at once, each blocked in a reconcile method; then both go on.
			await().atMost(Duration.ofSeconds(60))
				.until(() -> jdbc.queryForObject("SELECT COUNT(DISTINCT reconcile_owner) FROM " + TABLE, Integer.class),
						(owners) -> owners == 2);
			gate.countDown();
			await().atMost(Duration.ofSeconds(60))
				.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status = 'succeeded'",
						Integer.class), (succeeded) -> succeeded == calls);
			assertThat(first.getBean(Reconciler.class).reconciledSucceeded()).isPositive();
			assertThat(second.getBean(Reconciler.class).reconciledSucceeded()).isPositive();
		}));

		assertThat(reconciliations).hasSize(calls);
		assertThat(reconciliations.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	public static class ReportTool {

		static volatile CountDownLatch started = new CountDownLatch(1);

		static volatile CountDownLatch release = new CountDownLatch(0);

		static final AtomicInteger reconciled = new AtomicInteger();

		static final AtomicInteger exports = new AtomicInteger();

		/** Held at its start until released; nothing reconciled yet. */
		static void reset() {
			started = new CountDownLatch(1);
			release = new CountDownLatch(1);
			reconciled.set(0);
			exports.set(0);
		}

		@IdempotentTool(name = "export_report", reconcile = "findReport")
		public String exportReport(String account) throws InterruptedException {
			exports.incrementAndGet();
			started.countDown();
			assertThat(release.await(60, TimeUnit.SECONDS)).as("the test released the tool").isTrue();
			return "R-" + account;
		}

		Reconciliation<String> findReport(IdempotencyKey key) {
			reconciled.incrementAndGet();
			return Reconciliation.notFound();
		}

	}

	@Test
	void aCallThatRunsLongerThanStaleAfterIsNotReconciledWhileItsInstanceLives() throws Exception {
		ReportTool.reset();
		JdbcTemplate jdbc = new JdbcTemplate(postgres());
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try {
			this.runner.withBean(ReportTool.class)
				.withPropertyValues("idempotency.reconciler.interval=50ms", "idempotency.reconciler.stale-after=1s",
						"idempotency.heartbeat.interval=200ms")
				.run((context) -> {
					ReportTool tool = context.getBean(ReportTool.class);
					Future<String> call = caller
						.submit(() -> RunContext.call(new Run("long-run", "rep-1"), () -> tool.exportReport("acme")));
					assertThat(ReportTool.started.await(30, TimeUnit.SECONDS)).isTrue();

					// Three times stale-after, by the database clock, with the reconciler passing every 50 ms.
					await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE
							+ " WHERE tool = 'export_report' AND started_at < CURRENT_TIMESTAMP - INTERVAL '3 seconds'",
							Integer.class), (old) -> old == 1);
					assertThat(jdbc.queryForMap("SELECT status, reconcile_attempts, heartbeat_at FROM " + TABLE
							+ " WHERE tool = 'export_report'")).containsEntry("status", "attempting")
						.containsEntry("reconcile_attempts", 0)
						.hasEntrySatisfying("heartbeat_at", (at) -> assertThat(at).isNotNull());
					assertThat(ReportTool.reconciled).hasValue(0);

					ReportTool.release.countDown();
					assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("R-acme");
					assertThat(jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE tool = 'export_report'",
							String.class)).isEqualTo("succeeded");
					assertThat(context.getBean(JdbcLedger.class).lateCompletions()).isZero();
					assertThat(context.getBean(JdbcLedger.class).inFlight()).isZero();
				});
		}
		finally {
			ReportTool.release.countDown();
			caller.shutdownNow();
		}
	}

	@Test
	void aLateSuccessAfterAnotherInstanceReconciledTheCallFailedIsWrittenAndCounted() throws Exception {
		ReportTool.reset();
		JdbcTemplate jdbc = new JdbcTemplate(postgres());
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try {
			this.runner.withBean(ReportTool.class)
				.withPropertyValues("idempotency.reconciler.enabled=false", "idempotency.heartbeat.interval=30s")
				.run((context) -> {
					ReportTool tool = context.getBean(ReportTool.class);
					Future<String> call = caller
						.submit(() -> RunContext.call(new Run("late-run", "rep-1"), () -> tool.exportReport("acme")));
					assertThat(ReportTool.started.await(30, TimeUnit.SECONDS)).isTrue();
					// An instance that takes this one for dead (it has not beaten yet, as in a long pause) and
					// reconciles the call: the report is not found, so the call is resolved as failed.
					Reconciler other = new Reconciler(context.getBean(JdbcLedger.class),
							context.getBean(io.idempotency.advice.IdempotentToolRegistry.class), new JsonMapper(),
							new io.idempotency.reconcile.ReconcilerSettings(Duration.ofMillis(1), Map.of(), 10, Duration.ofMinutes(1),
									Duration.ofMillis(1), Duration.ofMillis(1), 3));
					assertThat(await().until(other::reconcile, (pass) -> pass.resolved() > 0).failed()).isEqualTo(1);

					ReportTool.release.countDown();
					assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("R-acme");

					assertThat(jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE tool = 'export_report'",
							String.class)).as("the effect happened: the reconciler's 'not found' is overturned")
						.isEqualTo("succeeded");
					assertThat(context.getBean(JdbcLedger.class).lateSuccesses()).isEqualTo(1);
					assertThat(context.getBean(JdbcLedger.class).lateCompletions()).isZero();
					assertThat(context.getBean(MeterRegistry.class)
						.get("idempotency.late.successes")
						.functionCounter()
						.count()).isEqualTo(1);
					assertThat(RunContext.call(new Run("late-run", "rep-1"), () -> tool.exportReport("acme")))
						.as("a repeat is a replay of the success").isEqualTo("R-acme");
					assertThat(ReportTool.reconciled).hasValue(1);
					assertThat(ReportTool.exports).as("executed once").hasValue(1);
				});
		}
		finally {
			ReportTool.release.countDown();
			caller.shutdownNow();
		}
	}

	@Test
	void aHeartbeatSetTooSlowForTheThresholdStopsTheStart() {
		this.runner.withPropertyValues("idempotency.reconciler.stale-after=1m", "idempotency.heartbeat.interval=45s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.heartbeat.interval (PT45S) must be at most half of"
						+ " idempotency.reconciler.stale-after (PT1M)"));
	}

	@Test
	void anUnsetHeartbeatFollowsTheShortestThreshold() {
		this.runner.withPropertyValues("idempotency.reconciler.stale-after=30s",
				"idempotency.reconciler.stale-after-by-tool.export_report=10m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(IdempotencyMaintenance.heartbeatInterval(context.getBean(IdempotencyProperties.class)))
					.isEqualTo(Duration.ofSeconds(10));
			});
		this.runner.withPropertyValues("idempotency.reconciler.stale-after=5ms")
			.run((context) -> {
				assertThat(context).as("reconcile at once, as tests do").hasNotFailed();
				assertThat(IdempotencyMaintenance.heartbeatInterval(context.getBean(IdempotencyProperties.class)))
					.isEqualTo(Duration.ofMillis(100));
			});
		this.runner.run((context) -> assertThat(
				IdempotencyMaintenance.heartbeatInterval(context.getBean(IdempotencyProperties.class)))
			.as("the default threshold of 2m").isEqualTo(Duration.ofSeconds(20)));
	}

	@Test
	void unknownExceptionNamesAreResolvedAtStartAndOneThatMatchesNothingStopsIt() {
		this.runner
			.withPropertyValues("idempotency.unknown-exceptions=org.springframework.web.client.HttpServerErrorException.GatewayTimeout,"
					+ "org.springframework.web.client.HttpClientErrorException$TooManyRequests")
			.run((context) -> assertThat(context).hasNotFailed());
		this.runner
			.withPropertyValues("idempotency.unknown-exceptions=org.springframework.web.client.HttpServerErrorException.GatewayTimeOut")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.unknown-exceptions")
				.hasMessageContaining("'org.springframework.web.client.HttpServerErrorException.GatewayTimeOut' is not a class"));
	}

	@Test
	void aRetentionOfNothingStopsTheStart() {
		this.runner.withPropertyValues("idempotency.retention.period=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.retention.period must be more than zero, but was PT0S"));
	}

	@Test
	void healthWarnsWhenNothingIsEverReplayedAndStopsAfterAReplay() {
		this.runner.withPropertyValues("idempotency.health.minimum-calls=2", "idempotency.health.cache-for=0s",
				"idempotency.replay-counts.flush-interval=10ms")
			.run((context) -> {
				IdempotencyHealthIndicator health = context.getBean(IdempotencyHealthIndicator.class);
				open(context, "r1");
				open(context, "r2");
				open(context, "r3");

				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				assertThat(health.health().getDetails()).containsEntry("calls", 3L)
					.containsEntry("replays", 0L)
					.containsEntry("warning", true);
				assertThat(String.valueOf(health.health().getDetails().get("problems")))
					.contains("no call was replayed in 3 calls");

				open(context, "r3");
				await().until(() -> health.health().getDetails().get("warning"), Boolean.FALSE::equals);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				assertThat(health.health().getDetails()).containsEntry("replays", 1L)
					.containsEntry("problems", List.of());
			});
	}

	@Test
	void healthIsDownWhileTheLedgerCannotBeRead() {
		this.runner.withPropertyValues("idempotency.health.cache-for=0s").run((context) -> {
			IdempotencyHealthIndicator health = context.getBean(IdempotencyHealthIndicator.class);
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			JdbcTemplate jdbc = new JdbcTemplate(postgres());
			jdbc.execute("ALTER TABLE " + TABLE + " RENAME TO " + TABLE + "_away");
			try {
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
			}
			finally {
				jdbc.execute("ALTER TABLE " + TABLE + "_away RENAME TO " + TABLE);
			}
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void theEndpointShowsTheRateTheStatusesAndTheOldestUnsettledCalls() {
		this.runner.run((context) -> {
			open(context, "r1");
			open(context, "r1");
			context.getBean(JdbcLedger.class).flushReplayCounts();
			String arguments = "{\"issue\":\"stuck\"}";
			context.getBean(JdbcLedger.class)
				.claim(new ClaimRequest(IdempotencyKeys.derive("open_ticket", arguments, "r9"), "r9", "rep-1",
						"open_ticket", arguments));

			JsonNode report = new JsonMapper()
				.readTree(new JsonMapper().writeValueAsString(context.getBean(IdempotencyEndpoint.class).report()));

			assertThat(report.get("table").stringValue()).isEqualTo(TABLE);
			assertThat(report.get("replays").get("calls").asLong()).isEqualTo(3);
			assertThat(report.get("replays").get("replays").asLong()).isEqualTo(1);
			assertThat(report.get("rowsByStatus").get("SUCCEEDED").asLong()).isEqualTo(1);
			assertThat(report.get("rowsByStatus").get("ATTEMPTING").asLong()).isEqualTo(1);
			assertThat(report.get("oldestUnsettled")).hasSize(1);
			assertThat(report.get("oldestUnsettled").get(0).get("runId").stringValue()).isEqualTo("r9");
			assertThat(report.toString()).doesNotContain("stuck");
			assertThat(report.get("answersSinceStart").get("executed").asLong()).isEqualTo(1);
			assertThat(report.get("answersSinceStart").get("replayed").asLong()).isEqualTo(1);
		});
	}

	@Test
	void aCallOfAnotherUsersKeyIsRefusedRevealsNothingAndIsCounted() {
		this.runner.run((context) -> {
			String ticket = open(context, "shared-run");
			TicketTool tool = context.getBean(TicketTool.class);
			assertThatExceptionOfType(io.idempotency.IdempotencyConflictException.class)
				.isThrownBy(() -> RunContext.supply(new Run("shared-run", "intruder"), () -> tool.openTicket("seal failure")))
				.satisfies((refused) -> assertThat(refused.getMessage()).doesNotContain(ticket).doesNotContain("rep-1"));
			assertThat(context.getBean(MeterRegistry.class)
				.get("idempotency.tool.call")
				.tag("idempotency.tool", "open_ticket")
				.tag("idempotency.outcome", "refused_conflict")
				.timer()
				.count()).isEqualTo(1);
			assertThat(tool.opened()).isEqualTo(1);
		});
	}

	@Test
	void callsAreTimedByToolAndOutcome() {
		this.runner.run((context) -> {
			open(context, "r1");
			open(context, "r1");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("idempotency.tool.call")
				.tag("idempotency.tool", "open_ticket")
				.tag("idempotency.outcome", "executed")
				.timer()
				.count()).isEqualTo(1);
			assertThat(registry.get("idempotency.tool.call").tag("idempotency.outcome", "replayed").timer().count())
				.isEqualTo(1);
			assertThat(registry.get("idempotency.late.completions").functionCounter().count()).isZero();
			assertThat(registry.get("idempotency.reconciled")
				.tag("idempotency.status", "succeeded")
				.functionCounter()
				.count()).isZero();
			assertThat(registry.get("idempotency.ledger.awaiting.human").gauge().value()).isZero();
		});
	}

}
