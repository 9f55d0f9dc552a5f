package io.idempotency.autoconfigure.observability;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.IdempotencyConflictException;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyApprovalsAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.observation.DefaultIdempotentCallObservationConvention;
import io.idempotency.observation.IdempotentCallObservationContext;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.metrics.actuate.endpoint.MetricsEndpoint;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The meters an application with Spring Boot's metrics gets: one timer per call, made by Boot's meter handler from
 * the call's observation and tagged with the tool and the answer's kind (or as the application's convention says),
 * no other meter that counts the calls again, and a gauge of the calls that wait for a human in the whole ledger,
 * read from the database at most once per {@code idempotency.health.cache-for}.
 */
class IdempotencyMetricsTest {

	private static final String TABLE = "tool_audit_metrics_test";

	public static class Tickets {

		private final AtomicInteger opened = new AtomicInteger();

		@IdempotentTool(name = "open_ticket", reconcile = "find")
		public String openTicket(String issue) {
			return "T-" + this.opened.incrementAndGet();
		}

		/** Times out after the carrier may have taken the order: its outcome is unknown. */
		@IdempotentTool(name = "book_carrier", reconcile = "find")
		public String bookCarrier(String order) {
			throw new UncheckedIOException(new SocketTimeoutException("the carrier did not answer"));
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** An application's convention: its own key names. */
	static class TeamConvention extends DefaultIdempotentCallObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(IdempotentCallObservationContext context) {
			return KeyValues.of("tool", context.getToolName(), "answer",
					(context.getAnswer() != null) ? context.getAnswer().kind() : "none");
		}

	}

	private static ApplicationContextRunner runner(DataSource dataSource) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
					ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
					IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class))
			// Not the shared pool itself, which the context would close.
			.withBean(DataSource.class, () -> new DelegatingDataSource(dataSource))
			.withBean(Tickets.class)
			.withPropertyValues("idempotency.jdbc.table-name=" + TABLE, "idempotency.jdbc.initialize-schema=always",
					"idempotency.reconciler.max-attempts=2");
	}

	private static void open(AssertableApplicationContext context, String runId, String userId) {
		RunContext.supply(new Run(runId, userId), () -> context.getBean(Tickets.class).openTicket("seal failure"));
	}

	@Test
	void eachCallIsOneTimerTaggedWithItsToolAndTheKindTheModelReads() {
		runner(TestDatabases.dataSource(TestDatabase.H2)).run((context) -> {
			open(context, "r1", "rep-1");
			open(context, "r1", "rep-1");
			assertThatExceptionOfType(IdempotencyConflictException.class).isThrownBy(() -> open(context, "r1", "intruder"));
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> RunContext
				.supply(new Run("r1", "rep-1"), () -> context.getBean(Tickets.class).bookCarrier("PO-7")));

			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("idempotency.tool.call").timers())
				.extracting((timer) -> timer.getId().getTag("idempotency.tool"),
						(timer) -> timer.getId().getTag("idempotency.outcome"), (timer) -> timer.getId().getTag("error"),
						Timer::count)
				.containsExactlyInAnyOrder(tuple("open_ticket", "executed", "none", 1L),
						tuple("open_ticket", "replayed", "none", 1L),
						tuple("open_ticket", "refused_conflict", "IdempotencyConflictException", 1L),
						tuple("book_carrier", "unknown", "UncheckedIOException", 1L));
			assertThat(registry.getMeters()).extracting((meter) -> meter.getId().getName())
				.filteredOn((name) -> name.startsWith("idempotency."))
				.as("no meter counts the calls beside the observation's timer")
				.containsOnly("idempotency.tool.call", "idempotency.tool.call.active",
						"idempotency.ledger.awaiting.human", "idempotency.late.completions", "idempotency.late.successes",
						"idempotency.reconciled", "idempotency.reconcile.human.handoffs", "idempotency.settlements",
						"idempotency.settlements.refused", "idempotency.outcomes.pending",
						"idempotency.ledger.awaiting.approval", "idempotency.approvals.requested", "idempotency.approvals",
						"idempotency.approvals.refused");
			assertThat(registry.get("idempotency.outcomes.pending").gauge().value()).isZero();
			assertThat(registry.get("idempotency.reconciled").functionCounters())
				.extracting((counter) -> counter.getId().getTag("idempotency.status"))
				.containsExactlyInAnyOrder("succeeded", "failed");
		});
	}

	@Test
	void aConventionBeanOfTheApplicationNamesTheTimersTags() {
		runner(TestDatabases.dataSource(TestDatabase.H2))
			.withBean(IdempotentCallObservationConvention.class, TeamConvention::new)
			.run((context) -> {
				open(context, "r1", "rep-1");
				open(context, "r1", "rep-1");

				assertThat(context.getBean(MeterRegistry.class).get("idempotency.tool.call").timers())
					.extracting((timer) -> timer.getId().getTag("tool"), (timer) -> timer.getId().getTag("answer"),
							(timer) -> timer.getId().getTag("idempotency.outcome"))
					.containsExactlyInAnyOrder(tuple("open_ticket", "executed", null),
							tuple("open_ticket", "replayed", null));
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Tickets tickets() {
			return new Tickets();
		}

	}

	@Test
	void anApplicationOnBootsAutoConfigurationShowsTheTimerAndTheGaugeAtItsMetricsEndpoint() {
		new ApplicationContextRunner().withUserConfiguration(Application.class)
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:metrics-application;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.server.enabled=false", "management.endpoints.web.exposure.include=metrics",
					// As the module's application.properties says for the applications SpringApplication starts.
					"spring.flyway.enabled=false", "spring.liquibase.enabled=false")
			.run((context) -> {
				open(context, "r1", "rep-1");
				open(context, "r1", "rep-1");

				MetricsEndpoint metrics = context.getBean(MetricsEndpoint.class);
				assertThat(metrics.listNames().getNames()).contains("idempotency.tool.call",
						"idempotency.ledger.awaiting.human").doesNotContain("idempotency.calls");
				MetricsEndpoint.MetricDescriptor replayed = metrics.metric("idempotency.tool.call",
						List.of("idempotency.tool:open_ticket", "idempotency.outcome:replayed"));
				assertThat(replayed.getMeasurements()).filteredOn((sample) -> sample.getStatistic() == Statistic.COUNT)
					.singleElement()
					.satisfies((count) -> assertThat(count.getValue()).isEqualTo(1.0));
				assertThat(replayed.getAvailableTags()).extracting(MetricsEndpoint.AvailableTag::getTag)
					.containsExactlyInAnyOrder("error");
				assertThat(metrics.metric("idempotency.ledger.awaiting.human", List.of()).getMeasurements())
					.singleElement()
					.satisfies((value) -> assertThat(value.getValue()).isZero());
			});
	}

	@ParameterizedTest
	@EnumSource(names = { "H2", "POSTGRESQL", "MARIADB" })
	void theGaugeReadsTheCallsAwaitingAHumanInTheWholeLedgerAtMostOncePerCacheFor(TestDatabase database) {
		DataSource dataSource = TestDatabases.dataSource(database);
		LedgerSchema.drop(dataSource, TABLE);
		try {
			runner(dataSource).withPropertyValues("idempotency.health.cache-for=1h").run((context) -> {
				for (String order : List.of("PO-1", "PO-2", "PO-3")) {
					assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> RunContext
						.supply(new Run("gauge-run", "rep-1"), () -> context.getBean(Tickets.class).bookCarrier(order)));
				}
				JdbcTemplate jdbc = new JdbcTemplate(dataSource);
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status = 'unknown'", Long.class))
					.isEqualTo(3);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("idempotency.ledger.awaiting.human").gauge().value()).isZero();

				// The reconciler used up its attempts on two of them (another instance's, say).
				List<String> keys = jdbc.queryForList("SELECT idempotency_key FROM " + TABLE + " ORDER BY id", String.class);
				for (String key : keys.subList(0, 2)) {
					jdbc.update("UPDATE " + TABLE + " SET reconcile_attempts = 2 WHERE idempotency_key = ?", key);
				}
				assertThat(registry.get("idempotency.ledger.awaiting.human").gauge().value())
					.as("read again only after cache-for").isZero();
			});
			runner(dataSource).withPropertyValues("idempotency.health.cache-for=0s").run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("idempotency.ledger.awaiting.human").gauge().value()).isEqualTo(2);
				new JdbcTemplate(dataSource).update("UPDATE " + TABLE + " SET reconcile_attempts = 5");
				assertThat(registry.get("idempotency.ledger.awaiting.human").gauge().value()).isEqualTo(3);
				assertThat(registry.get("idempotency.ledger.awaiting.human").gauge().getId().getType())
					.isEqualTo(Meter.Type.GAUGE);
			});
		}
		finally {
			LedgerSchema.drop(dataSource, TABLE);
		}
	}

}
