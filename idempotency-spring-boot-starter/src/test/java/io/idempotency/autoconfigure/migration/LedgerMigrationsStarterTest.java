package io.idempotency.autoconfigure.migration;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.FreshSchema;
import io.idempotency.testsupport.TestDatabase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.flywayOn;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.withH2StatusCheck;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application that creates its tables with Flyway or Liquibase takes the ledger's table from the shipped
 * migrations, beside its own, with the starter's initializer off; the ledger waits for them, claims and replays.
 * With the initializer on too, it runs after them (and after the application's own SQL scripts) and finds the
 * table. A table the initializer made before moves to them.
 */
class LedgerMigrationsStarterTest {

	private static final String APPLICATION_MIGRATIONS = "classpath:io/idempotency/autoconfigure/migration/flyway";

	private static final String LEDGER_MIGRATIONS = "classpath:io/idempotency/ledger/migration/{vendor}";

	private static final String MASTER_CHANGELOG = "classpath:io/idempotency/autoconfigure/migration/liquibase/db.changelog-master.yaml";

	public static class TicketTool {

		private final AtomicInteger opened = new AtomicInteger();

		@IdempotentTool(name = "open_ticket", reconcile = "findTicket")
		public String openTicket(String issue) {
			return "T-" + this.opened.incrementAndGet();
		}

		public int opened() {
			return this.opened.get();
		}

		Reconciliation<String> findTicket(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	private static ApplicationContextRunner application(FreshSchema schema) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
					FlywayAutoConfiguration.class, LiquibaseAutoConfiguration.class,
					IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class))
			.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
			.withBean(TicketTool.class);
	}

	private static ApplicationContextRunner withFlyway(FreshSchema schema, String... locations) {
		return application(schema).withPropertyValues("spring.liquibase.enabled=false",
				"spring.flyway.locations=" + String.join(",", locations));
	}

	private static ApplicationContextRunner withLiquibase(FreshSchema schema) {
		return application(schema).withPropertyValues("spring.flyway.enabled=false",
				"spring.liquibase.change-log=" + MASTER_CHANGELOG);
	}

	private static String open(AssertableApplicationContext context, String runId) {
		TicketTool tool = context.getBean(TicketTool.class);
		return RunContext.supply(new Run(runId, "rep-1"), () -> tool.openTicket("seal failure"));
	}

	/** A call claimed and executed, then its repeat replayed without executing again. */
	private static void claimsAndReplays(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		assertThat(open(context, "run-1")).isEqualTo("T-1");
		assertThat(open(context, "run-1")).as("the repeat is replayed").isEqualTo("T-1");
		assertThat(context.getBean(TicketTool.class).opened()).as("executed once").isEqualTo(1);
	}

	private static List<String> applied(AssertableApplicationContext context) {
		return appliedBy(context.getBean(Flyway.class));
	}

	private static List<String> appliedBy(Flyway flyway) {
		return java.util.Arrays.stream(flyway.info().applied())
			.map((MigrationInfo migration) -> migration.getVersion() + " " + migration.getState().getDisplayName())
			.toList();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void flywayCreatesTheLedgerTableBesideTheApplicationsOwnMigrations(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withFlyway(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS)
				.withPropertyValues("idempotency.jdbc.initialize-schema=never")
				.run((context) -> {
					claimsAndReplays(context);
					assertThat(applied(context)).containsExactlyElementsOf(flywayOn(database,
							"1 Success", "1.0.0.0.1 Success", "1.0.0.0.2 Success", "1.0.0.0.4 Success", "2 Success"));
				});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anApplicationWhoseMigrationsAreAheadAppliesTheLedgersOutOfOrder(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withFlyway(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.enabled=false")
				.run((context) -> assertThat(applied(context)).containsExactly("1 Success", "2 Success"));

			withFlyway(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS)
				.withPropertyValues("idempotency.jdbc.initialize-schema=never")
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.hasMessageContaining("Detected resolved migration not applied to database: 1.0.0.0.1")
					.hasMessageContaining("outOfOrder"));

			withFlyway(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS)
				.withPropertyValues("idempotency.jdbc.initialize-schema=never", "spring.flyway.out-of-order=true")
				.run((context) -> {
					claimsAndReplays(context);
					assertThat(applied(context)).containsExactlyElementsOf(flywayOn(database,
							"1 Success", "2 Success", "1.0.0.0.1 Out of Order",
							"1.0.0.0.2 Out of Order", "1.0.0.0.4 Out of Order"));
				});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void liquibaseCreatesTheLedgerTableFromTheChangelogTheApplicationIncludes(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withLiquibase(schema).withPropertyValues("idempotency.jdbc.initialize-schema=never").run((context) -> {
				claimsAndReplays(context);
				assertThat(LedgerMigrationsTest.changeSets(schema.dataSource()))
					.containsExactlyElementsOf(withH2StatusCheck(database,
						"tickets EXECUTED",
						ledgerChangeSet("1.0.0.0.1", database) + " EXECUTED",
						ledgerChangeSet("1.0.0.0.2", database) + " EXECUTED",
						LedgerMigrationsTest.approvalsChangeSet(database, "EXECUTED")));
			});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void withTheInitializerOnTooFlywayCreatesTheTableAndTheInitializerFindsIt(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withFlyway(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS)
				.withPropertyValues("idempotency.jdbc.initialize-schema=always")
				.run((context) -> {
					claimsAndReplays(context);
					assertThat(applied(context)).containsExactlyElementsOf(flywayOn(database,
							"1 Success", "1.0.0.0.1 Success", "1.0.0.0.2 Success", "1.0.0.0.4 Success", "2 Success"));
				});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void withTheInitializerOnTooLiquibaseCreatesTheTableAndTheInitializerFindsIt(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withLiquibase(schema).withPropertyValues("idempotency.jdbc.initialize-schema=always").run((context) -> {
				claimsAndReplays(context);
				assertThat(LedgerMigrationsTest.changeSets(schema.dataSource()))
					.containsExactlyElementsOf(withH2StatusCheck(database,
						"tickets EXECUTED",
						ledgerChangeSet("1.0.0.0.1", database) + " EXECUTED",
						ledgerChangeSet("1.0.0.0.2", database) + " EXECUTED",
						LedgerMigrationsTest.approvalsChangeSet(database, "EXECUTED")));
			});
		}
	}

	@Test
	void onAnEmbeddedDatabaseTheDefaultSettingsLeaveTheTableToFlyway() {
		try (FreshSchema schema = FreshSchema.on(TestDatabase.H2)) {
			withFlyway(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS).run((context) -> {
				claimsAndReplays(context);
				assertThat(applied(context)).containsExactlyElementsOf(flywayOn(TestDatabase.H2,
						"1 Success", "1.0.0.0.1 Success", "1.0.0.0.2 Success", "1.0.0.0.4 Success", "2 Success"));
			});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void withTheInitializerOnTooTheApplicationsOwnSqlScriptCreatesTheTableAndTheInitializerFindsIt(
			TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			application(schema)
				.withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
				.withPropertyValues("spring.flyway.enabled=false", "spring.liquibase.enabled=false",
						"spring.sql.init.mode=always",
						"spring.sql.init.schema-locations="
								+ LedgerSchema.createScriptLocation(LedgerSchema.platformOf(schema.dataSource())),
						"idempotency.jdbc.initialize-schema=always")
				.run(LedgerMigrationsStarterTest::claimsAndReplays);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableTheInitializerCreatedMovesToFlywayByABaselineAtTheLedgersLatestVersion(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			application(schema)
				.withPropertyValues("spring.flyway.enabled=false", "spring.liquibase.enabled=false",
						"idempotency.jdbc.initialize-schema=always")
				.run((context) -> assertThat(open(context, "run-1")).isEqualTo("T-1"));

			withFlyway(schema, LEDGER_MIGRATIONS)
				.withPropertyValues("idempotency.jdbc.initialize-schema=never", "spring.flyway.baseline-on-migrate=true",
						"spring.flyway.baseline-version=1.0.0.0.4")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(applied(context)).containsExactlyElementsOf(flywayOn(database, "1.0.0.0.4 Baseline"));
					assertThat(open(context, "run-1")).as("the call made before is replayed").isEqualTo("T-1");
					assertThat(context.getBean(TicketTool.class).opened()).isZero();
				});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableTheInitializerCreatedMovesToLiquibaseMarkedAsRan(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			application(schema)
				.withPropertyValues("spring.flyway.enabled=false", "spring.liquibase.enabled=false",
						"idempotency.jdbc.initialize-schema=always")
				.run((context) -> assertThat(open(context, "run-1")).isEqualTo("T-1"));

			withLiquibase(schema).withPropertyValues("idempotency.jdbc.initialize-schema=never").run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(LedgerMigrationsTest.changeSets(schema.dataSource()))
					.containsExactlyElementsOf(withH2StatusCheck(database,
						"tickets EXECUTED",
						ledgerChangeSet("1.0.0.0.1", database) + " MARK_RAN",
						ledgerChangeSet("1.0.0.0.2", database) + " MARK_RAN",
						LedgerMigrationsTest.approvalsChangeSet(database, "MARK_RAN")));
				assertThat(open(context, "run-1")).as("the call made before is replayed").isEqualTo("T-1");
				assertThat(context.getBean(TicketTool.class).opened()).isZero();
			});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableBesideAnExistingFlywayHistoryMovesToTheMigrationsUnderAHistoryOfTheirOwn(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			// The application's Flyway made its tables; the initializer (or a copy of the script) made the ledger's.
			withFlyway(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.jdbc.initialize-schema=always")
				.run((context) -> assertThat(open(context, "run-1")).isEqualTo("T-1"));

			Flyway ledgerFlyway = Flyway.configure()
				.dataSource(schema.dataSource())
				.locations("classpath:io/idempotency/ledger/migration/" + LedgerMigrationsTest.vendorOf(database))
				.table("idempotency_schema_history")
				.baselineOnMigrate(true)
				.baselineVersion("1.0.0.0.4")
				.load();
			ledgerFlyway.migrate();
			assertThat(appliedBy(ledgerFlyway)).containsExactlyElementsOf(flywayOn(database, "1.0.0.0.4 Baseline"));

			withFlyway(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.jdbc.initialize-schema=never")
				.run((context) -> {
					assertThat(applied(context)).containsExactly("1 Success", "2 Success");
					assertThat(open(context, "run-1")).as("the call made before is replayed").isEqualTo("T-1");
					assertThat(context.getBean(TicketTool.class).opened()).isZero();
				});
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aHistoryOfTheirOwnCreatesTheTableWhereThereIsNone(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withFlyway(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.enabled=false")
				.run((context) -> assertThat(applied(context)).containsExactly("1 Success", "2 Success"));

			Flyway ledgerFlyway = Flyway.configure()
				.dataSource(schema.dataSource())
				.locations("classpath:io/idempotency/ledger/migration/" + LedgerMigrationsTest.vendorOf(database))
				.table("idempotency_schema_history")
				.baselineOnMigrate(true)
				.load();
			ledgerFlyway.migrate();
			assertThat(appliedBy(ledgerFlyway)).containsExactlyElementsOf(flywayOn(database,
					"1 Baseline", "1.0.0.0.1 Success",
					"1.0.0.0.2 Success", "1.0.0.0.4 Success"));

			withFlyway(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.jdbc.initialize-schema=never")
				.run(LedgerMigrationsStarterTest::claimsAndReplays);
			assertThat(new JdbcTemplate(schema.dataSource()).queryForObject("SELECT COUNT(*) FROM tool_audit",
					Integer.class)).isEqualTo(1);
		}
	}

	private static String ledgerChangeSet(String version, TestDatabase database) {
		return LedgerMigrationsTest.changeSet(version, database);
	}

}
