package io.idempotency.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.FreshSchema;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schema initializer looks for the ledger table where the ledger will use it, and nowhere else; a table made
 * before the latest migration is told what to run, and what it is told brings it to the table of this version.
 */
class LedgerSchemaInitializerTest {

	private static final String TABLE = "tool_audit_init_test";

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableOfTheSameNameInAnotherSchemaDoesNotCountAsTheLedgers(TestDatabase database) {
		DataSource dataSource = TestDatabases.dataSource(database);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		// MariaDB's schema is a database; PostgreSQL and H2 have schemas.
		jdbc.execute("CREATE SCHEMA IF NOT EXISTS elsewhere");
		LedgerSchema.drop(dataSource, TABLE);
		LedgerSchema.drop(dataSource, "elsewhere." + TABLE);
		LedgerSchema.create(dataSource, "elsewhere." + TABLE);
		try {
			initialize(dataSource, TABLE);

			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isZero();
		}
		finally {
			LedgerSchema.drop(dataSource, TABLE);
			LedgerSchema.drop(dataSource, "elsewhere." + TABLE);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aSchemaQualifiedTableIsLookedForAndCreatedInItsSchema(TestDatabase database) {
		DataSource dataSource = TestDatabases.dataSource(database);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("CREATE SCHEMA IF NOT EXISTS agents");
		LedgerSchema.drop(dataSource, "agents." + TABLE);
		LedgerSchema.create(dataSource, TABLE);
		try {
			initialize(dataSource, "agents." + TABLE);
			initialize(dataSource, "agents." + TABLE);

			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM agents." + TABLE, Integer.class)).isZero();
		}
		finally {
			LedgerSchema.drop(dataSource, TABLE);
			LedgerSchema.drop(dataSource, "agents." + TABLE);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableMadeBeforeTheSettlementColumnsIsServedAndToldWhatToRun(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			String vendor = LedgerSchema.platformOf(schema.dataSource());
			migrate(schema.dataSource(), vendor, "V1_0_0_0_1__idempotency_ledger.sql");
			for (DatabaseInitializationMode mode : DatabaseInitializationMode.values()) {
				List<String> warnings = warningsOf(() -> initialize(schema.dataSource(), "tool_audit", mode));

				assertThat(warnings).as(mode.name()).hasSize(2);
				assertThat(warnings.get(0)).contains("lacks the columns [settled_by, settled_at, settle_reason]")
					.contains("io/idempotency/ledger/migration/" + vendor + "/V1_0_0_0_2__idempotency_ledger_settlements.sql");
				assertThat(warnings.get(1)).as("then")
					.contains("lacks the columns [approval_reason, decided_by, decided_at, decision_reason]")
					.contains("io/idempotency/ledger/migration/" + vendor + "/V1_0_0_0_4__idempotency_ledger_approvals.sql");
			}
			assertWhatTheWarningsSayMakesTheTableOfThisVersion(schema);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableMadeBeforeTheApprovalColumnsIsServedAndToldWhatToRun(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			String vendor = LedgerSchema.platformOf(schema.dataSource());
			migrate(schema.dataSource(), vendor, "V1_0_0_0_1__idempotency_ledger.sql",
					"V1_0_0_0_2__idempotency_ledger_settlements.sql");
			for (DatabaseInitializationMode mode : DatabaseInitializationMode.values()) {
				List<String> warnings = warningsOf(() -> initialize(schema.dataSource(), "tool_audit", mode));

				assertThat(warnings).as(mode.name()).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
					.contains("lacks the columns [approval_reason, decided_by, decided_at, decision_reason]"
							+ " of the ledger's migration 1.0.0.0.4")
					.contains("no tool that needs a person's approval can claim a call until they exist")
					.contains("io/idempotency/ledger/migration/" + vendor + "/V1_0_0_0_4__idempotency_ledger_approvals.sql");
			}
			assertWhatTheWarningsSayMakesTheTableOfThisVersion(schema);
		}
	}

	/**
	 * Runs the migrations the warnings name, in their order, after which nothing is said, and the table takes a
	 * row awaiting approval; and a table of this version is said nothing either.
	 */
	private static void assertWhatTheWarningsSayMakesTheTableOfThisVersion(FreshSchema schema) {
		List<String> warnings = warningsOf(() -> initialize(schema.dataSource(), "tool_audit"));
		for (String warning : warnings) {
			String location = warning.replaceFirst("(?s).*Apply (classpath:\\S+\\.sql).*", "$1");
			new ResourceDatabasePopulator(new DefaultResourceLoader().getResource(location)).execute(schema.dataSource());
		}
		assertThat(warningsOf(() -> initialize(schema.dataSource(), "tool_audit"))).as("once upgraded").isEmpty();
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		jdbc.update("INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status, started_at,"
				+ " approval_reason) VALUES ('k', 'r', 't', '{}', 'awaiting', CURRENT_TIMESTAMP, 'a refund')");
		jdbc.execute("DROP TABLE tool_audit");
		LedgerSchema.create(schema.dataSource(), "tool_audit");
		assertThat(warningsOf(() -> initialize(schema.dataSource(), "tool_audit", DatabaseInitializationMode.ALWAYS)))
			.as("a table of this version")
			.isEmpty();
	}

	/** Runs migrations of the ledger's, by hand, without their comments. */
	private static void migrate(DataSource dataSource, String vendor, String... scripts) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		for (String script : scripts) {
			for (String statement : withoutComments(vendor, script).split(";")) {
				if (!statement.isBlank()) {
					jdbc.execute(statement);
				}
			}
		}
	}

	/** A migration's statements, without its comments. */
	private static String withoutComments(String vendor, String script) {
		try {
			return new ClassPathResource("io/idempotency/ledger/migration/" + vendor + "/" + script)
				.getContentAsString(StandardCharsets.UTF_8)
				.lines()
				.filter((line) -> !line.startsWith("--"))
				.collect(Collectors.joining("\n"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static List<String> warningsOf(Runnable work) {
		Logger logger = (Logger) LoggerFactory.getLogger(LedgerSchemaInitializer.class);
		ListAppender<ILoggingEvent> logged = new ListAppender<>();
		logged.start();
		logger.addAppender(logged);
		try {
			work.run();
		}
		finally {
			logger.detachAppender(logged);
		}
		return logged.list.stream()
			.filter((event) -> event.getLevel() == Level.WARN)
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
	}

	private static void initialize(DataSource dataSource, String tableName) {
		initialize(dataSource, tableName, DatabaseInitializationMode.ALWAYS);
	}

	private static void initialize(DataSource dataSource, String tableName, DatabaseInitializationMode mode) {
		IdempotencyProperties.Jdbc settings = new IdempotencyProperties.Jdbc();
		settings.setTableName(tableName);
		settings.setInitializeSchema(mode);
		new LedgerSchemaInitializer(dataSource, settings, new DefaultResourceLoader()).afterPropertiesSet();
	}

}
