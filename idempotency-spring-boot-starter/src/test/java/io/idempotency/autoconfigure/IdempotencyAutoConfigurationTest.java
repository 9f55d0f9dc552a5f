package io.idempotency.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;
import io.idempotency.advice.IdempotentToolAdvisor;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.MissingRunException;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import org.springframework.ai.chat.model.ToolContext;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import io.idempotency.reconcile.Settlements;
import io.idempotency.autoconfigure.QuoteTool.QuoteRequest;
import io.idempotency.autoconfigure.ai.IdempotencySpringAiAutoConfiguration;
import io.idempotency.autoconfigure.http.IdempotencyHttpClientAutoConfiguration;
import io.idempotency.autoconfigure.observability.IdempotencyEndpoint;
import io.idempotency.autoconfigure.observability.IdempotencyHealthIndicator;
import io.idempotency.autoconfigure.observability.IdempotencyMetrics;
import io.idempotency.autoconfigure.observability.IdempotencyHealthAutoConfiguration;
import io.idempotency.autoconfigure.observability.IdempotencyMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

class IdempotencyAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
				IdempotencyDisabledAutoConfiguration.class,
				IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencyMetricsAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class,
				IdempotencySpringAiAutoConfiguration.class, IdempotencyHttpClientAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=idempotency");

	@Configuration(proxyBeanMethods = false)
	static class Tools {

		@Bean
		QuoteTool quoteTool(DataSource dataSource) {
			return new QuoteTool(new JdbcTemplate(dataSource));
		}

	}

	private static final QuoteRequest REQUEST = new QuoteRequest("Henderson Industrial", "SKU-4411", 200,
			LocalDate.of(2026, 12, 18), null);

	private static String draft(QuoteTool tool, String runId) {
		return RunContext.supply(new Run(runId, "rep-1"), () -> tool.draftQuote(REQUEST));
	}

	@Test
	void addingTheStarterToAnApplicationWithADataSourceIsAllItTakes() {
		this.runner.withUserConfiguration(Tools.class).run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcLedger.class)
				.hasSingleBean(LedgerSchemaInitializer.class)
				.hasSingleBean(IdempotentToolAdvisor.class)
				.hasSingleBean(IdempotentToolRegistry.class)
				.hasSingleBean(Reconciler.class)
				.hasSingleBean(Settlements.class)
				.hasSingleBean(IdempotencyMaintenance.class);
			QuoteTool tool = context.getBean(QuoteTool.class);

			draft(tool, "r1");
			draft(tool, "r1");
			draft(tool, "r2");

			assertThat(tool.quotes()).isEqualTo(2);
			assertThat(context.getBean(IdempotentToolRegistry.class).toolNames()).containsExactly("draft_quote");
		});
	}

	@Test
	void aRepeatOfASettledCallThisInstanceHasReadIsAnsweredFromMemoryByDefault() {
		this.runner.withUserConfiguration(Tools.class).run((context) -> {
			QuoteTool tool = context.getBean(QuoteTool.class);
			String executed = draft(tool, "r1");
			draft(tool, "r1");
			// Only memory still knows the call now.
			new JdbcTemplate(context.getBean(DataSource.class)).update("DELETE FROM tool_audit");

			assertThat(draft(tool, "r1")).isEqualTo(executed);
			assertThat(tool.quotes()).isEqualTo(1);
		});
	}

	@Test
	void theReplayCacheCanBeTurnedOff() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.replay-cache.enabled=false")
			.run((context) -> {
				QuoteTool tool = context.getBean(QuoteTool.class);
				draft(tool, "r1");
				draft(tool, "r1");
				new JdbcTemplate(context.getBean(DataSource.class)).update("DELETE FROM tool_audit");

				draft(tool, "r1");
				assertThat(tool.quotes()).isEqualTo(2);
			});
	}

	@Test
	void outcomesAreWrittenBehindTheirCallersOnlyWhenEnabledAndTheLastOnesOnShutdown() throws Exception {
		String url = "jdbc:h2:mem:write-behind;DB_CLOSE_DELAY=-1";
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("spring.datasource.url=" + url, "idempotency.outcome-write-behind.enabled=true",
					"idempotency.outcome-write-behind.delay=1h")
			.run((context) -> {
				QuoteTool tool = context.getBean(QuoteTool.class);
				JdbcLedger ledger = context.getBean(JdbcLedger.class);
				String executed = draft(tool, "r1");

				assertThat(ledger.pendingOutcomes()).isEqualTo(1);
				assertThat(statuses(context.getBean(DataSource.class))).containsExactly("attempting");
				assertThat(draft(tool, "r1")).isEqualTo(executed);
				assertThat(tool.quotes()).isEqualTo(1);

				// A transactional call's outcome commits with its transaction: it never waits.
				IdempotentCalls calls = context.getBean(IdempotentCalls.class);
				IdempotentFunction<String> note = IdempotentFunction.builder("note", String.class).transactional().build();
				calls.register(note);
				RunContext.run(new Run("r1", "rep-1"), () -> calls.call(note, "{\"text\":\"a\"}", () -> "noted"));
				assertThat(ledger.pendingOutcomes()).isEqualTo(1);
				assertThat(new JdbcTemplate(context.getBean(DataSource.class))
					.queryForObject("SELECT status FROM tool_audit WHERE tool = 'note'", String.class)).isEqualTo("succeeded");
				context.close();
			});
		try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url, "sa", "");
				java.sql.ResultSet row = connection.createStatement()
					.executeQuery("SELECT status FROM tool_audit WHERE tool = 'draft_quote'")) {
			assertThat(row.next()).isTrue();
			assertThat(row.getString(1)).isEqualTo("succeeded");
			connection.createStatement().execute("DROP ALL OBJECTS");
		}
		this.runner.withUserConfiguration(Tools.class).run((context) -> {
			draft(context.getBean(QuoteTool.class), "r1");
			assertThat(context.getBean(JdbcLedger.class).pendingOutcomes()).isZero();
			assertThat(statuses(context.getBean(DataSource.class))).containsExactly("succeeded");
		});
	}

	/**
	 * Every duration and count of the properties, out of its bounds: zero or negative where that means nothing,
	 * longer than a database counts back, or not what JDBC can time; each with the message that names it.
	 */
	static Stream<Arguments> outOfBounds() {
		return Stream.of(
				Arguments.of("idempotency.health.window=0s", "idempotency.health.window must be more than zero, but was PT0S"),
				Arguments.of("idempotency.health.window=-1d", "idempotency.health.window must be more than zero, but was PT-24H"),
				Arguments.of("idempotency.health.window=36501d", "idempotency.health.window must be at most 36500d"),
				Arguments.of("idempotency.health.minimum-calls=-1",
						"idempotency.health.minimum-calls must be zero or more, but was -1"),
				Arguments.of("idempotency.health.cache-for=-1s",
						"idempotency.health.cache-for must be zero or more, but was PT-1S"),
				Arguments.of("idempotency.health.cache-for=36501d", "idempotency.health.cache-for must be at most 36500d"),
				Arguments.of("idempotency.health.timeout=0s", "idempotency.health.timeout must be a whole number of seconds"),
				Arguments.of("idempotency.health.timeout=500ms", "idempotency.health.timeout must be a whole number of seconds"),
				Arguments.of("idempotency.health.timeout=1500ms",
						"idempotency.health.timeout must be a whole number of seconds from 1s to 60s (JDBC's query timeouts"
								+ " are in seconds), but was PT1.5S"),
				Arguments.of("idempotency.health.timeout=61s", "idempotency.health.timeout must be a whole number of seconds"),
				Arguments.of("idempotency.reconciler.stale-after=0s",
						"idempotency.reconciler.stale-after must be more than zero, but was PT0S"),
				Arguments.of("idempotency.reconciler.stale-after=36501d",
						"idempotency.reconciler.stale-after must be at most 36500d"),
				Arguments.of("idempotency.reconciler.stale-after-by-tool.draft_quote=-1s",
						"idempotency.reconciler.stale-after-by-tool.draft_quote must be more than zero, but was PT-1S"),
				Arguments.of("idempotency.reconciler.batch-size=0", "idempotency.reconciler.batch-size must be at least 1, but was 0"),
				Arguments.of("idempotency.reconciler.lease=0s", "idempotency.reconciler.lease must be more than zero, but was PT0S"),
				Arguments.of("idempotency.reconciler.initial-backoff=-1s",
						"idempotency.reconciler.initial-backoff must be more than zero, but was PT-1S"),
				Arguments.of("idempotency.reconciler.max-backoff=0s",
						"idempotency.reconciler.max-backoff must be more than zero, but was PT0S"),
				Arguments.of("idempotency.reconciler.max-backoff=30s",
						"idempotency.reconciler.max-backoff (PT30S) must not be shorter than idempotency.reconciler.initial-backoff (PT1M)"),
				Arguments.of("idempotency.reconciler.max-attempts=0",
						"idempotency.reconciler.max-attempts must be at least 1, but was 0"),
				Arguments.of("idempotency.reconciler.interval=0s",
						"idempotency.reconciler.interval must be more than zero, but was PT0S"),
				Arguments.of("idempotency.heartbeat.interval=0s",
						"idempotency.heartbeat.interval must be more than zero, but was PT0S"),
				Arguments.of("idempotency.heartbeat.interval=-1s",
						"idempotency.heartbeat.interval must be more than zero, but was PT-1S"),
				Arguments.of("idempotency.replay-counts.flush-interval=0s",
						"idempotency.replay-counts.flush-interval must be more than zero, but was PT0S"),
				Arguments.of("idempotency.retention.period=-1d", "idempotency.retention.period must be more than zero"),
				Arguments.of("idempotency.retention.period=36501d", "idempotency.retention.period must be at most 36500d"),
				Arguments.of("idempotency.retention.interval=0s",
						"idempotency.retention.interval must be more than zero, but was PT0S"),
				Arguments.of("idempotency.retention.batch-size=0", "idempotency.retention.batch-size must be at least 1, but was 0"),
				Arguments.of("idempotency.replay-cache.maximum-entries=-1",
						"idempotency.replay-cache.maximum-entries must be at least 0, but was -1 (enabled=false turns the cache off)"),
				Arguments.of("idempotency.replay-cache.time-to-live=0s",
						"idempotency.replay-cache.time-to-live must be more than zero, but was PT0S"),
				Arguments.of("idempotency.max-arguments-size=0B",
						"idempotency.max-arguments-size must be at least 1 byte, but was 0B"),
				Arguments.of("idempotency.max-result-size=0B", "idempotency.max-result-size must be at least 1 byte, but was 0B"));
	}

	@ParameterizedTest
	@MethodSource("outOfBounds")
	void aPropertyOutOfItsBoundsStopsTheStartAndNamesIt(String property, String message) {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues(property)
			.run((context) -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(message));
	}

	/** Where the reconciler is off, health and the endpoint still report with its threshold and attempts. */
	@ParameterizedTest
	@MethodSource("withoutTheReconciler")
	void theReconcilersThresholdAndAttemptsAreCheckedWhenItIsOff(String property, String message) {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.reconciler.enabled=false", property)
			.run((context) -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(message));
	}

	static Stream<Arguments> withoutTheReconciler() {
		return Stream.of(
				Arguments.of("idempotency.reconciler.stale-after=-1s",
						"idempotency.reconciler.stale-after must be more than zero, but was PT-1S"),
				Arguments.of("idempotency.reconciler.max-attempts=0",
						"idempotency.reconciler.max-attempts must be at least 1, but was 0"));
	}

	@Test
	void aWriteBehindOutOfItsBoundsStopsTheStartAndNamesTheProperty() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.outcome-write-behind.enabled=true", "idempotency.outcome-write-behind.capacity=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("idempotency.outcome-write-behind.capacity must be at least 1, but was 0"));
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.outcome-write-behind.enabled=true",
					"idempotency.outcome-write-behind.batch-size=0")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("idempotency.outcome-write-behind.batch-size must be at least 1, but was 0"));
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.outcome-write-behind.enabled=true", "idempotency.outcome-write-behind.delay=-1ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("idempotency.outcome-write-behind.delay must be zero or more, but was PT-0.001S"));
	}

	@Test
	void argumentsLargerThanTheConfiguredSizeAreRefusedBeforeAnythingRuns() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.max-arguments-size=1KB")
			.run((context) -> {
				QuoteTool tool = context.getBean(QuoteTool.class);
				QuoteTool.QuoteRequest large = new QuoteTool.QuoteRequest("Henderson", "SKU-4411", 200, null,
						"n".repeat(1024));
				assertThatExceptionOfType(InvalidArgumentsException.class)
					.isThrownBy(() -> RunContext.supply(new Run("r1", "rep-1"), () -> tool.draftQuote(large)))
					.withMessageContaining("more than the 1024 allowed");
				assertThat(tool.quotes()).isZero();
				assertThat(rows(context.getBean(DataSource.class), "tool_audit")).isZero();
				draft(tool, "r1");
				assertThat(tool.quotes()).isEqualTo(1);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		static final JdbcLedger[] ledger = new JdbcLedger[1];

		@Bean
		JdbcLedger myLedger(DataSource dataSource) {
			ledger[0] = new JdbcLedger(dataSource, "tool_audit", Redaction.none());
			return ledger[0];
		}

		@Bean
		LedgerSchemaInitializer mySchemaInitializer(DataSource dataSource) {
			return new LedgerSchemaInitializer(dataSource, new IdempotencyProperties().getJdbc(),
					new DefaultResourceLoader());
		}

		@Bean
		IdempotencyMaintenance myMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler) {
			return new IdempotencyMaintenance(ledger, reconciler, new IdempotencyProperties());
		}

		@Bean
		static IdempotentToolAdvisor myAdvisor(ObjectProvider<JdbcLedger> ledger) {
			return new IdempotentToolAdvisor(ledger::getObject, JsonMapper::new, List::of, () -> null);
		}

		@Bean
		static IdempotentToolRegistry myRegistry(IdempotentToolAdvisor advisor) {
			return new IdempotentToolRegistry(advisor);
		}

		@Bean
		Reconciler myReconciler(JdbcLedger ledger, IdempotentToolRegistry registry) {
			return new Reconciler(ledger, registry, new JsonMapper(), ReconcilerSettings.defaults());
		}

		@Bean
		Settlements mySettlements(JdbcLedger ledger, IdempotentToolRegistry registry) {
			return new Settlements(ledger, registry, new JsonMapper(), ReconcilerSettings.defaults());
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		IdempotencyMetrics myMetrics(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler) {
			return new IdempotencyMetrics(ledger, reconciler, 3, Duration.ofMinutes(1), Duration.ofSeconds(2));
		}

		@Bean
		IdempotencyHealthIndicator idempotencyHealthIndicator(JdbcLedger ledger) {
			return new IdempotencyHealthIndicator(ledger, Duration.ofDays(1), 10, 3, Duration.ofMinutes(1),
					java.util.Set::of, Duration.ofMinutes(2), Duration.ofSeconds(2));
		}

		@Bean
		IdempotencyEndpoint myEndpoint(JdbcLedger ledger) {
			return new IdempotencyEndpoint(ledger, Duration.ofDays(1), 3, java.util.Set::of, Duration.ofMinutes(2),
					Duration.ofSeconds(2));
		}

	}

	static Stream<Arguments> beans() {
		return Stream.of(Arguments.of(JdbcLedger.class, "myLedger"),
				Arguments.of(LedgerSchemaInitializer.class, "mySchemaInitializer"),
				Arguments.of(IdempotencyMaintenance.class, "myMaintenance"),
				Arguments.of(IdempotentToolAdvisor.class, "myAdvisor"),
				Arguments.of(IdempotentToolRegistry.class, "myRegistry"), Arguments.of(Reconciler.class, "myReconciler"),
				Arguments.of(Settlements.class, "mySettlements"),
				Arguments.of(IdempotencyMetrics.class, "myMetrics"),
				Arguments.of(IdempotencyHealthIndicator.class, "idempotencyHealthIndicator"),
				Arguments.of(IdempotencyEndpoint.class, "myEndpoint"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("beans")
	void everyBeanBacksOffForTheApplicationsOwn(Class<?> type, String name) {
		this.runner.withUserConfiguration(OwnBeans.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeanNamesForType(type)).containsExactly(name);
		});
	}

	@Test
	void theTableIsCreatedOnEmbeddedDatabasesOnlyByDefault() {
		this.runner.run((context) -> assertThat(rows(context.getBean(DataSource.class), "tool_audit")).isZero());
		this.runner.withPropertyValues("idempotency.jdbc.initialize-schema=never")
			.run((context) -> assertThat(tableExists(context.getBean(DataSource.class), "tool_audit")).isFalse());
		this.runner.withPropertyValues("idempotency.jdbc.initialize-schema=always")
			.run((context) -> assertThat(tableExists(context.getBean(DataSource.class), "tool_audit")).isTrue());
	}

	@Test
	void theTableNameIsConfigurable() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.jdbc.table-name=agent_ledger")
			.run((context) -> {
				draft(context.getBean(QuoteTool.class), "r1");
				assertThat(rows(context.getBean(DataSource.class), "agent_ledger")).isEqualTo(1);
				assertThat(tableExists(context.getBean(DataSource.class), "tool_audit")).isFalse();
			});
	}

	@Test
	void aTableNameThatIsNotAnIdentifierStopsTheStart() {
		this.runner.withPropertyValues("idempotency.jdbc.table-name=tool_audit; DROP TABLE users")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("is not a valid SQL identifier"));
	}

	@Test
	void aToolWithoutReconcileStopsTheStart() {
		this.runner.withBean(Unreconciled.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.hasMessageContaining("Tool 'open_ticket'")
			.hasMessageContaining("has no reconcile method"));
	}

	public static class Unreconciled {

		@IdempotentTool(name = "open_ticket")
		public String openTicket(String issue) {
			return issue;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoDataSources {

		@Bean
		DataSource orders() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		DataSource reporting() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		QuoteTool quoteTool(@Qualifier("orders") DataSource orders) {
			return new QuoteTool(new JdbcTemplate(orders));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LedgerOnItsOwnDataSource {

		@Bean
		@IdempotencyDataSource
		DataSource ledger() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

	}

	@Test
	void severalDataSourcesWithoutAChoiceStopTheStartAndSayHowToChoose() {
		this.runner.withUserConfiguration(TwoDataSources.class).run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.rootCause()
			.hasMessageContaining("cannot choose among the application's 2 DataSources")
			.hasMessageContaining("@IdempotencyDataSource"));
	}

	@Test
	void theLedgerUsesTheDataSourceMarkedForIt() {
		this.runner.withUserConfiguration(TwoDataSources.class, LedgerOnItsOwnDataSource.class)
			.withPropertyValues("idempotency.jdbc.initialize-schema=always")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				QuoteTool tool = context.getBean(QuoteTool.class);
				draft(tool, "r1");
				draft(tool, "r1");

				assertThat(tool.quotes()).isEqualTo(1);
				assertThat(rows(context.getBean("ledger", DataSource.class), "tool_audit")).isEqualTo(1);
				assertThat(tableExists(context.getBean("orders", DataSource.class), "tool_audit")).isFalse();
			});
	}

	@Test
	void idempotentToolsWithoutALedgerStopTheStart() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
					IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class))
			.withBean(QuoteTool.class, () -> new QuoteTool(new JdbcTemplate(TestDatabases.dataSource(TestDatabase.H2))))
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("Tools [draft_quote] are idempotent, but there is no JdbcLedger")
				.hasMessageContaining("@IdempotencyDataSource"));
	}

	@Test
	void underLazyInitializationEveryToolIsKnownAtStartAndReconciled() {
		this.runner.withUserConfiguration(Tools.class)
			.withInitializer((context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
			.withPropertyValues("idempotency.jdbc.initialize-schema=always")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(IdempotentToolRegistry.class).reconcilableToolNames())
					.containsExactly("draft_quote");
				JdbcLedger ledger = context.getBean(JdbcLedger.class);
				String arguments = "{\"request\":{\"accountName\":\"Acme\"}}";
				IdempotencyKey key = IdempotencyKeys.derive("draft_quote", arguments, "lazy-run");
				ledger.claim(new ClaimRequest(key, "lazy-run", "rep-1", "draft_quote", arguments));
				Reconciler reconciler = new Reconciler(ledger, context.getBean(IdempotentToolRegistry.class),
						new JsonMapper(), new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 10, Duration.ofMinutes(1),
								Duration.ofMillis(1), Duration.ofMillis(1), 3));

				await().until(reconciler::reconcile, (pass) -> pass.resolved() > 0);
				assertThat(ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.FAILED);
			});
	}

	@Test
	void everythingBacksAwayWhenDisabled() {
		this.runner.withUserConfiguration(Tools.class).withPropertyValues("idempotency.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(JdbcLedger.class)
				.doesNotHaveBean(IdempotentToolAdvisor.class)
				.doesNotHaveBean(Reconciler.class);
			QuoteTool tool = context.getBean(QuoteTool.class);
			draft(tool, "r1");
			draft(tool, "r1");
			assertThat(tool.quotes()).isEqualTo(2);

			// A function runs as if it were not idempotent, as the annotated tool does.
			IdempotentCalls calls = context.getBean(IdempotentCalls.class);
			IdempotentFunction<String> note = IdempotentFunction.builder("note", String.class).transactional().build();
			calls.register(note);
			java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
			RunContext.run(new Run("r1", null), () -> {
				calls.call(note, "{\"text\":\"a\"}", () -> "note " + ran.incrementAndGet());
				calls.call(note, java.util.Map.of("text", "a"), () -> "note " + ran.incrementAndGet());
				calls.callAsync(note, java.util.Map.of("text", "a"),
						() -> java.util.concurrent.CompletableFuture.completedFuture("note " + ran.incrementAndGet()), Runnable::run);
			});
			assertThat(ran).hasValue(3);

			// One that needs a person's approval would act without one: refused, and nothing runs.
			IdempotentFunction<String> refund = IdempotentFunction.builder("refund", String.class)
				.transactional()
				.requiresApproval()
				.build();
			calls.register(refund);
			org.assertj.core.api.Assertions.assertThatIllegalStateException()
				.isThrownBy(() -> RunContext.run(new Run("r1", null),
						() -> calls.call(refund, "{}", () -> "refunded " + ran.incrementAndGet())))
				.withMessageContaining("function 'refund' need a person's approval before they act");
			assertThat(ran).hasValue(3);
		});
	}

	public static class RefundTool {

		@IdempotentTool(name = "refund_order", reconcile = "findRefund", requiresApproval = true)
		public String refund(String order) {
			return order;
		}

		io.idempotency.Reconciliation<String> findRefund(io.idempotency.key.IdempotencyKey key) {
			return io.idempotency.Reconciliation.notFound();
		}

	}

	@Test
	void switchedOffItDoesNotStartWhereAToolOrAFunctionNeedsAPersonsApproval() {
		this.runner.withPropertyValues("idempotency.enabled=false")
			.withBean(RefundTool.class)
			.withBean("note", IdempotentFunction.class, () -> IdempotentFunction.builder("note", String.class)
				.transactional()
				.approval((arguments) -> io.idempotency.Approval.notRequired())
				.build())
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasMessageContaining("idempotency.enabled=false, but IdempotencyAutoConfigurationTest.RefundTool.refund, note"
						+ " need a person's approval before they act"));
	}

	@Test
	void theReconcilerCanBeLeftToOtherInstances() {
		this.runner.withPropertyValues("idempotency.reconciler.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(Reconciler.class)
				.doesNotHaveBean(Settlements.class)
				.hasSingleBean(IdempotencyMaintenance.class));
	}

	@Test
	void propertiesReachTheAdvisor() {
		this.runner.withPropertyValues("idempotency.advisor-order=42")
			.run((context) -> assertThat(context.getBean(IdempotentToolAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void aCallOutsideARunCanBeAllowedByProperty() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.missing-run=execute-without-deduplication")
			.run((context) -> {
				QuoteTool tool = context.getBean(QuoteTool.class);
				tool.draftQuote(REQUEST);
				tool.draftQuote(REQUEST);
				assertThat(tool.quotes()).isEqualTo(2);
			});
		this.runner.withUserConfiguration(Tools.class).run((context) -> assertThatExceptionOfType(MissingRunException.class)
			.isThrownBy(() -> context.getBean(QuoteTool.class).draftQuote(REQUEST)));
	}

	public static class ConversationTool {

		@IdempotentTool(name = "note", reconcile = "find")
		public String note(String text, ToolContext toolContext) {
			return text;
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void theToolContextKeysAreConfigurable() {
		this.runner.withBean(ConversationTool.class)
			.withPropertyValues("idempotency.tool-context.run-id-key=conversationTurn",
					"idempotency.tool-context.user-id-key=principal")
			.run((context) -> {
				context.getBean(ConversationTool.class)
					.note("hello", new ToolContext(Map.of("conversationTurn", "turn-7", "principal", "ada")));
				var key = IdempotencyKeys.derive("note", "{\"text\":\"hello\"}", "turn-7");
				assertThat(context.getBean(JdbcLedger.class).find(key).orElseThrow().userId()).isEqualTo("ada");
			});
	}

	@Test
	void theLedgerWaitsForTheSchemaInitializer() {
		this.runner.run((context) -> {
			String ledger = context.getBeanNamesForType(JdbcLedger.class)[0];
			assertThat(context.getBeanFactory().getBeanDefinition(ledger).getDependsOn())
				.contains(context.getBeanNamesForType(LedgerSchemaInitializer.class)[0]);
		});
	}

	@Test
	void replayCountsAreWrittenInTheBackground() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("idempotency.replay-counts.flush-interval=50ms")
			.run((context) -> {
				QuoteTool tool = context.getBean(QuoteTool.class);
				draft(tool, "r1");
				draft(tool, "r1");
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				await().until(() -> jdbc.queryForObject("SELECT SUM(replay_count) FROM tool_audit", Integer.class),
						(count) -> count != null && count == 1);
			});
	}

	@Test
	void theApplicationsJsonSettingsChangeNoKey() {
		this.runner.withUserConfiguration(Tools.class)
			.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE",
					"spring.jackson.default-property-inclusion=non_null")
			.run((context) -> {
				draft(context.getBean(QuoteTool.class), "r1");
				String arguments = "{\"request\":{\"accountName\":\"Henderson Industrial\",\"sku\":\"SKU-4411\","
						+ "\"quantity\":200,\"deliverBy\":\"2026-12-18\"}}";
				var key = IdempotencyKeys.derive("draft_quote", arguments, "r1");
				assertThat(context.getBean(JdbcLedger.class).find(key).orElseThrow().status())
					.isEqualTo(LedgerStatus.SUCCEEDED);
			});
	}

	@Test
	void everyPropertyIsDescribedForTheIde() throws Exception {
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			JsonNode metadata = new JsonMapper().readTree(in);
			Map<String, JsonNode> properties = metadata.get("properties")
				.valueStream()
				.collect(java.util.stream.Collectors.toMap((p) -> p.get("name").stringValue(), Function.identity()));
			assertThat(properties).containsKeys("idempotency.enabled", "idempotency.jdbc.table-name",
					"idempotency.jdbc.initialize-schema", "idempotency.missing-run", "idempotency.redaction.names",
					"idempotency.retention.period", "idempotency.reconciler.stale-after",
					"idempotency.reconciler.stale-after-by-tool", "idempotency.reconciler.max-attempts",
					"idempotency.tool-context.run-id-key", "idempotency.unknown-exceptions",
					"idempotency.replay-cache.enabled", "idempotency.replay-cache.maximum-entries",
					"idempotency.replay-cache.time-to-live", "idempotency.max-arguments-size",
					"idempotency.outcome-write-behind.enabled", "idempotency.outcome-write-behind.capacity",
					"idempotency.outcome-write-behind.batch-size", "idempotency.outcome-write-behind.delay");
			assertThat(properties.values()).allSatisfy((p) -> assertThat(p.has("description"))
				.as("description of %s", p.get("name"))
				.isTrue());
		}
	}

	private static boolean tableExists(DataSource dataSource, String table) {
		try {
			rows(dataSource, table);
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static java.util.List<String> statuses(DataSource dataSource) {
		return new JdbcTemplate(dataSource).queryForList("SELECT status FROM tool_audit", String.class);
	}

	private static int rows(DataSource dataSource, String table) {
		return new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM " + table, Integer.class);
	}

}
