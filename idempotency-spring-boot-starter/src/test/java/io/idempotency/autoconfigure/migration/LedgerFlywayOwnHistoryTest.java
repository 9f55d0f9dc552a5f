package io.idempotency.autoconfigure.migration;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.flywayOn;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger's Flyway migrations with a history of their own ({@code idempotency.jdbc.flyway}), beside an
 * application whose own migrations are {@code V1} to {@code V3}: no {@code outOfOrder}, so Flyway logs no warning;
 * a second start migrates nothing; and an application that ran the ledger's migrations in its own history, as
 * recommended before, moves to it without breaking.
 */
class LedgerFlywayOwnHistoryTest {

	private static final String APPLICATION_MIGRATIONS = "classpath:io/idempotency/autoconfigure/migration/flyway-own";

	private static final String LEDGER_MIGRATIONS = "classpath:io/idempotency/ledger/migration/{vendor}";

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

	private final Logger flywayLogger = (Logger) LoggerFactory.getLogger("org.flywaydb");

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	@BeforeEach
	void listen() {
		this.logged.start();
		this.flywayLogger.addAppender(this.logged);
	}

	@AfterEach
	void stopListening() {
		this.flywayLogger.detachAppender(this.logged);
	}

	private static ApplicationContextRunner application(FreshSchema schema, String... locations) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
					FlywayAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
					IdempotentToolsAutoConfiguration.class))
			.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
			.withBean(TicketTool.class)
			.withPropertyValues("spring.liquibase.enabled=false", "spring.flyway.locations=" + String.join(",", locations));
	}

	/** The application as recommended now: its own migrations, and the ledger's with a history of their own. */
	private static ApplicationContextRunner withOwnHistory(FreshSchema schema) {
		return application(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.jdbc.flyway=true");
	}

	private static String open(AssertableApplicationContext context, String runId) {
		TicketTool tool = context.getBean(TicketTool.class);
		return RunContext.supply(new Run(runId, "rep-1"), () -> tool.openTicket("seal failure"));
	}

	private static List<String> applied(Flyway flyway) {
		return Arrays.stream(flyway.info().applied())
			.map((MigrationInfo migration) -> migration.getVersion() + " " + migration.getState().getDisplayName())
			.toList();
	}

	private static Flyway ledgerHistory(FreshSchema schema) {
		return Flyway.configure()
			.dataSource(schema.dataSource())
			.locations("classpath:io/idempotency/ledger/migration/" + LedgerMigrationsTest.vendorOf(schema.database()))
			.table("idempotency_schema_history")
			.load();
	}

	/**
	 * What Flyway warned of, but that the H2 of the build is newer than Flyway 11.14 was verified with (a notice
	 * of the test's own set-up, at every start on H2, whatever the migrations).
	 */
	private List<String> flywayWarnings() {
		return this.logged.list.stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.map(ILoggingEvent::getFormattedMessage)
			.filter((message) -> !message.matches("Using H2 .* newer than the version Flyway has been verified with.*"))
			.toList();
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theLedgersMigrationsRunBesideTheApplicationsWithoutAWarningAndASecondStartMigratesNothing(
			TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			withOwnHistory(schema).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(open(context, "run-1")).isEqualTo("T-1");
				assertThat(open(context, "run-1")).as("the repeat is replayed").isEqualTo("T-1");
				assertThat(applied(context.getBean(Flyway.class))).containsExactly("1 Success", "2 Success", "3 Success");
			});
			assertThat(applied(ledgerHistory(schema))).containsExactlyElementsOf(flywayOn(database,
					"1 Baseline", "1.0.0.0.1 Success",
					"1.0.0.0.2 Success", "1.0.0.0.4 Success"));

			this.logged.list.clear();
			withOwnHistory(schema).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(open(context, "run-1")).as("the call of the first start is replayed").isEqualTo("T-1");
				assertThat(context.getBean(TicketTool.class).opened()).isZero();
			});
			assertThat(applied(ledgerHistory(schema))).as("the second start migrated nothing")
				.containsExactlyElementsOf(flywayOn(database, "1 Baseline", "1.0.0.0.1 Success", "1.0.0.0.2 Success",
						"1.0.0.0.4 Success"));
			assertThat(flywayWarnings()).as("Flyway warned").isEmpty();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableMadeBeforeTheApprovalsIsAdoptedAtItsVersionAndBroughtToTheLatest(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			// The application's own migrations, and the table as the initializer of an earlier version made it: the
			// table of the migrations before 1.0.0.0.4.
			application(schema, APPLICATION_MIGRATIONS).withPropertyValues("idempotency.enabled=false")
				.run((context) -> assertThat(context).hasNotFailed());
			LedgerMigrationsTest.migrationsBeforeTheApprovals(schema, database);

			this.logged.list.clear();
			withOwnHistory(schema).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(open(context, "run-1")).isEqualTo("T-1");
				assertThat(open(context, "run-1")).as("the repeat is replayed").isEqualTo("T-1");
			});

			assertThat(applied(ledgerHistory(schema))).containsExactlyElementsOf(flywayOn(database,
					"1.0.0.0.2 Baseline", "1.0.0.0.4 Success"));
			assertThat(new JdbcTemplate(schema.dataSource()).queryForList("SELECT " + String.join(", ",
					LedgerSchema.APPROVAL_COLUMNS) + " FROM tool_audit")).as("the approval columns").hasSize(1);
			assertThat(flywayWarnings()).as("Flyway warned").isEmpty();
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anApplicationWhoseFlywayIsStillGivenTheLedgersMigrationsIsStoppedSayingWhatToRemove(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			application(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS)
				.withPropertyValues("spring.flyway.out-of-order=true", "idempotency.jdbc.flyway=true")
				.run((context) -> assertThat(context.getStartupFailure()).isNotNull()
					.rootCause()
					.hasMessageContaining("idempotency.jdbc.flyway=true")
					.hasMessageContaining("in spring.flyway.locations): remove that location"));
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void anApplicationThatRanTheLedgersMigrationsInItsOwnHistoryMovesToTheLedgersOwn(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			// As recommended before: the ledger's location in the application's Flyway, out of order.
			application(schema, APPLICATION_MIGRATIONS, LEDGER_MIGRATIONS)
				.withPropertyValues("spring.flyway.out-of-order=true", "idempotency.jdbc.initialize-schema=never")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(applied(context.getBean(Flyway.class))).contains("1.0.0.0.1 Success", "1.0.0.0.2 Success",
							"1.0.0.0.4 Success");
					assertThat(open(context, "run-1")).isEqualTo("T-1");
				});
			assertThat(flywayWarnings()).as("out of order, Flyway warns at every start")
				.anySatisfy((warning) -> assertThat(warning).contains("outOfOrder mode is active"));

			this.logged.list.clear();
			withOwnHistory(schema).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(applied(context.getBean(Flyway.class))).containsExactly("1 Success", "2 Success", "3 Success");
				assertThat(open(context, "run-1")).as("the call made before is replayed").isEqualTo("T-1");
				assertThat(context.getBean(TicketTool.class).opened()).isZero();
			});
			assertThat(applied(ledgerHistory(schema))).containsExactlyElementsOf(flywayOn(database,
					"1.0.0.0.4 Baseline"));
			assertThat(flywayWarnings()).as("Flyway warned").isEmpty();

			this.logged.list.clear();
			withOwnHistory(schema).run((context) -> assertThat(context).hasNotFailed());
			assertThat(applied(ledgerHistory(schema))).containsExactlyElementsOf(flywayOn(database,
					"1.0.0.0.4 Baseline"));
			assertThat(flywayWarnings()).as("Flyway warned").isEmpty();
		}
	}

}
