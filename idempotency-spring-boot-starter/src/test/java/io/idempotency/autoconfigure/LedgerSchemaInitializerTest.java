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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schema initializer looks for the ledger table where the ledger will use it, and nowhere else; a table made
 * before the latest migration is told what to run.
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
			JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
			String vendor = LedgerSchema.platformOf(schema.dataSource());
			for (String statement : firstMigration(vendor).split(";")) {
				if (!statement.isBlank()) {
					jdbc.execute(statement);
				}
			}
			for (DatabaseInitializationMode mode : DatabaseInitializationMode.values()) {
				List<String> warnings = warningsOf(() -> initialize(schema.dataSource(), "tool_audit", mode));

				assertThat(warnings).as(mode.name()).singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
					.contains("lacks the columns [settled_by, settled_at, settle_reason]")
					.contains("io/idempotency/ledger/migration/" + vendor + "/V1_0_0_0_2__idempotency_ledger_settlements.sql");
			}
			jdbc.execute("DROP TABLE tool_audit");
			LedgerSchema.create(schema.dataSource(), "tool_audit");
			assertThat(warningsOf(() -> initialize(schema.dataSource(), "tool_audit", DatabaseInitializationMode.ALWAYS)))
				.as("a table of this version")
				.isEmpty();
		}
	}

	/** The first migration's statements, without its comments. */
	private static String firstMigration(String vendor) {
		try {
			return new ClassPathResource("io/idempotency/ledger/migration/" + vendor + "/V1_0_0_0_1__idempotency_ledger.sql")
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
