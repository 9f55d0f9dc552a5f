package io.idempotency.autoconfigure.migration;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.FreshSchema;
import io.idempotency.testsupport.TestDatabase;
import liquibase.integration.spring.SpringLiquibase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger's Flyway migrations and Liquibase changelog create exactly the table that the shipped schema script
 * creates, on every database, and never change once released.
 */
class LedgerMigrationsTest {

	static final String LOCATION = "io/idempotency/ledger/migration/";

	static final String CHANGELOG = "classpath:io/idempotency/ledger/changelog/db.changelog-idempotency.yaml";

	/**
	 * Flyway's checksum of each released migration, as every database that ran it keeps it: a migration that
	 * changes after its release stops every such application at its next start (Flyway's validation). Change the
	 * table with a new migration instead.
	 */
	private static final Map<String, Integer> RELEASED = Map.ofEntries(Map.entry("postgresql/1.0.0.0.1", 329171022),
			Map.entry("mysql/1.0.0.0.1", 880284380), Map.entry("mariadb/1.0.0.0.1", 880284380),
			Map.entry("h2/1.0.0.0.1", -1475499320), Map.entry("postgresql/1.0.0.0.2", -592560247),
			Map.entry("mysql/1.0.0.0.2", -601966761), Map.entry("mariadb/1.0.0.0.2", -601966761),
			Map.entry("h2/1.0.0.0.2", 237031053), Map.entry("h2/1.0.0.0.3", 697777380),
			Map.entry("postgresql/1.0.0.0.4", 187093123), Map.entry("mysql/1.0.0.0.4", -1024089142),
			Map.entry("mariadb/1.0.0.0.4", -1024089142), Map.entry("h2/1.0.0.0.4", -1057623830));

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theFlywayMigrationsCreateTheTableTheSchemaScriptCreates(TestDatabase database) {
		try (FreshSchema migrated = FreshSchema.on(database); FreshSchema scripted = FreshSchema.on(database)) {
			Flyway flyway = Flyway.configure()
				.dataSource(migrated.dataSource())
				.locations("classpath:" + LOCATION + vendorOf(database))
				.load();
			flyway.migrate();
			LedgerSchema.create(scripted.dataSource(), "tool_audit");

			assertThat(tableOf(migrated)).isEqualTo(tableOf(scripted));
			assertThat(flyway.info().applied()).extracting(MigrationInfo::getState).containsOnly(MigrationState.SUCCESS);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void theLiquibaseChangelogCreatesTheTableTheSchemaScriptCreates(TestDatabase database) throws Exception {
		try (FreshSchema migrated = FreshSchema.on(database); FreshSchema scripted = FreshSchema.on(database)) {
			liquibase(migrated.dataSource(), CHANGELOG);
			LedgerSchema.create(scripted.dataSource(), "tool_audit");

			assertThat(tableOf(migrated)).isEqualTo(tableOf(scripted));
			assertThat(changeSets(migrated.dataSource())).containsExactlyElementsOf(withH2StatusCheck(database,
					changeSet("1.0.0.0.1", database) + " EXECUTED", changeSet("1.0.0.0.2", database) + " EXECUTED",
					approvalsChangeSet(database, "EXECUTED")));
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableOfTheFirstMigrationIsBroughtToTheSchemaScriptsTableByFlywayFromABaseline(TestDatabase database) {
		try (FreshSchema migrated = FreshSchema.on(database); FreshSchema scripted = FreshSchema.on(database)) {
			firstMigration(migrated, database);
			Flyway flyway = Flyway.configure()
				.dataSource(migrated.dataSource())
				.locations("classpath:" + LOCATION + vendorOf(database))
				.baselineOnMigrate(true)
				.baselineVersion("1.0.0.0.1")
				.load();
			flyway.migrate();
			LedgerSchema.create(scripted.dataSource(), "tool_audit");

			assertThat(tableOf(migrated)).isEqualTo(tableOf(scripted));
			assertThat(flyway.info().applied()).extracting((migration) -> migration.getVersion().getVersion())
				.containsExactlyElementsOf((database == TestDatabase.H2)
						? List.of("1.0.0.0.1", "1.0.0.0.2", "1.0.0.0.3", "1.0.0.0.4")
						: List.of("1.0.0.0.1", "1.0.0.0.2", "1.0.0.0.4"));
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableOfTheFirstMigrationIsBroughtToTheSchemaScriptsTableByLiquibase(TestDatabase database) throws Exception {
		try (FreshSchema migrated = FreshSchema.on(database); FreshSchema scripted = FreshSchema.on(database)) {
			firstMigration(migrated, database);
			liquibase(migrated.dataSource(), CHANGELOG);
			LedgerSchema.create(scripted.dataSource(), "tool_audit");

			assertThat(tableOf(migrated)).isEqualTo(tableOf(scripted));
			assertThat(changeSets(migrated.dataSource())).containsExactlyElementsOf(withH2StatusCheck(database,
					changeSet("1.0.0.0.1", database) + " MARK_RAN", changeSet("1.0.0.0.2", database) + " EXECUTED",
					approvalsChangeSet(database, "EXECUTED")));
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aTableOfTheSchemaScriptIsTakenByLiquibaseAsAtTheLatestChangeSet(TestDatabase database) throws Exception {
		try (FreshSchema schema = FreshSchema.on(database)) {
			LedgerSchema.create(schema.dataSource(), "tool_audit");
			List<String> scripted = tableOf(schema);
			liquibase(schema.dataSource(), CHANGELOG);

			assertThat(tableOf(schema)).as("the table after Liquibase").isEqualTo(scripted);
			assertThat(changeSets(schema.dataSource())).containsExactlyElementsOf(withH2StatusCheck(database,
					changeSet("1.0.0.0.1", database) + " MARK_RAN", changeSet("1.0.0.0.2", database) + " MARK_RAN",
					approvalsChangeSet(database, "MARK_RAN")));
		}
	}

	/**
	 * The migrations Flyway recorded on a database, each with its state: those given, and on H2 after
	 * {@code 1.0.0.0.2} the one that writes the status check anew ({@code 1.0.0.0.3}), which runs wherever that
	 * one ran or was a baseline.
	 */
	static List<String> flywayOn(TestDatabase database, String... applied) {
		List<String> all = new ArrayList<>();
		for (String migration : applied) {
			all.add(migration);
			if (database == TestDatabase.H2 && migration.startsWith("1.0.0.0.2 ")) {
				String state = migration.substring("1.0.0.0.2 ".length());
				all.add("1.0.0.0.3 " + (state.equals("Baseline") ? "Success" : state));
			}
		}
		return all;
	}

	/**
	 * The change sets recorded on a database: those given, and on H2 after {@code 1.0.0.0.2} the one that writes
	 * the status check anew ({@code 1.0.0.0.3}), which runs on any table.
	 */
	static List<String> withH2StatusCheck(TestDatabase database, String... changeSets) {
		List<String> all = new ArrayList<>();
		for (String changeSet : changeSets) {
			all.add(changeSet);
			if (database == TestDatabase.H2 && changeSet.startsWith(changeSet("1.0.0.0.2", database) + " ")) {
				all.add(changeSet("1.0.0.0.3", database) + " EXECUTED");
			}
		}
		return all;
	}

	/**
	 * The change set {@code 1.0.0.0.4} as Liquibase recorded it: as given, but on H2 executed on any table, since
	 * {@code 1.0.0.0.3} has just written the check of the first four statuses there.
	 */
	static String approvalsChangeSet(TestDatabase database, String how) {
		return changeSet("1.0.0.0.4", database) + " " + ((database == TestDatabase.H2) ? "EXECUTED" : how);
	}

	/**
	 * On H2, a table made by the migrations takes claims once the connections that migrated it have closed: H2 2.4
	 * evaluated the IN list of the first migration's status check with the session that created the table, and
	 * refused every insert after it closed (a pool retiring that connection). Here no connection outlives its use.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "flyway", "liquibase" })
	void onH2AMigratedTableTakesClaimsOnceTheConnectionsThatMigratedItHaveClosed(String tool) throws Exception {
		DataSource dataSource = new DriverManagerDataSource(
				"jdbc:h2:mem:migrated-" + tool + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");
		if (tool.equals("flyway")) {
			Flyway.configure().dataSource(dataSource).locations("classpath:" + LOCATION + "h2").load().migrate();
		}
		else {
			liquibase(dataSource, CHANGELOG);
		}
		try (JdbcLedger ledger = new JdbcLedger(dataSource)) {
			ClaimRequest request = new ClaimRequest(IdempotencyKeys.derive("send_quote", "{\"qty\":3}", "r1"), "r1",
					"u1", "send_quote", "{\"qty\":3}", Set.of());

			assertThat(ledger.claim(request)).isInstanceOf(Claim.Won.class);
		}
	}

	/** The ledger's change set of a version for a database. */
	static String changeSet(String version, TestDatabase database) {
		return "idempotency-ledger-" + version + "-" + (database == TestDatabase.MARIADB ? "mysql" : vendorOf(database));
	}

	/** Makes the table as the first migration alone made it, before the later ones existed. */
	static void firstMigration(FreshSchema schema, TestDatabase database) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator(
				new ClassPathResource(LOCATION + vendorOf(database) + "/V1_0_0_0_1__idempotency_ledger.sql"));
		populator.execute(schema.dataSource());
	}

	/**
	 * Makes the table as the migrations before {@code 1.0.0.0.4} made it (and the schema script of their time),
	 * without a history.
	 */
	static void migrationsBeforeTheApprovals(FreshSchema schema, TestDatabase database) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator(
				new ClassPathResource(LOCATION + vendorOf(database) + "/V1_0_0_0_1__idempotency_ledger.sql"),
				new ClassPathResource(LOCATION + vendorOf(database) + "/V1_0_0_0_2__idempotency_ledger_settlements.sql"));
		if (database == TestDatabase.H2) {
			populator.addScript(
					new ClassPathResource(LOCATION + "h2/V1_0_0_0_3__idempotency_ledger_status_check.sql"));
		}
		populator.execute(schema.dataSource());
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void aReleasedMigrationNeverChanges(TestDatabase database) {
		try (FreshSchema schema = FreshSchema.on(database)) {
			for (String vendor : (database == TestDatabase.MARIADB) ? List.of("mariadb", "mysql")
					: List.of(vendorOf(database))) {
				Flyway flyway = Flyway.configure()
					.dataSource(schema.dataSource())
					.table("history_" + vendor)
					.locations("classpath:" + LOCATION + vendor)
					.baselineOnMigrate(true)
					.baselineVersion("0")
					.load();
				for (MigrationInfo migration : flyway.info().all()) {
					if (migration.getVersion().getVersion().equals("0")) {
						continue;
					}
					String name = vendor + "/" + migration.getVersion();
					assertThat(RELEASED).as("released migrations").containsKey(name);
					assertThat(migration.getChecksum()).as(name + " changed after its release: add a migration instead")
						.isEqualTo(RELEASED.get(name));
				}
			}
		}
	}

	/** Boot's Flyway fills {vendor} with these names: each has a folder, MariaDB's a copy of MySQL's. */
	@ParameterizedTest
	@ValueSource(strings = { "jdbc:postgresql://localhost/app", "jdbc:mariadb://localhost/app",
			"jdbc:mysql://localhost/app", "jdbc:h2:mem:app" })
	void everyVendorBootNamesForASupportedDatabaseHasItsFolder(String url) throws IOException {
		String vendor = DatabaseDriver.fromJdbcUrl(url).getId();
		assertThat(migrations(vendor)).as(vendor).isNotEmpty();
	}

	@Test
	void theMariaDbFolderHoldsTheMySqlMigrationsByteForByte() throws IOException {
		Resource[] mysql = migrations("mysql");
		Resource[] mariadb = migrations("mariadb");
		assertThat(names(mariadb)).isEqualTo(names(mysql));
		for (int i = 0; i < mysql.length; i++) {
			assertThat(mariadb[i].getContentAsByteArray()).as(mariadb[i].getFilename())
				.isEqualTo(mysql[i].getContentAsByteArray());
		}
	}

	@Test
	void theMigrationsLiveUnderThePackagePathOnly() {
		assertThat(new ClassPathResource("db/migration/V1_0_0_0_1__idempotency_ledger.sql").exists()).isFalse();
		assertThat(new ClassPathResource(LOCATION + "postgresql/V1_0_0_0_1__idempotency_ledger.sql").exists()).isTrue();
	}

	static String vendorOf(TestDatabase database) {
		return switch (database) {
			case POSTGRESQL -> "postgresql";
			case MARIADB -> "mariadb";
			case H2 -> "h2";
		};
	}

	static void liquibase(DataSource dataSource, String changelog) throws Exception {
		SpringLiquibase liquibase = new SpringLiquibase();
		liquibase.setDataSource(dataSource);
		liquibase.setChangeLog(changelog);
		liquibase.setResourceLoader(new DefaultResourceLoader());
		liquibase.afterPropertiesSet();
	}

	/** The change sets Liquibase recorded, each with how: {@code EXECUTED} or {@code MARK_RAN}. */
	static List<String> changeSets(DataSource dataSource) {
		return new JdbcTemplate(dataSource).queryForList(
				"SELECT CONCAT(id, ' ', exectype) FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED", String.class);
	}

	private static Resource[] migrations(String vendor) throws IOException {
		Resource[] found = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:" + LOCATION + vendor + "/*.sql");
		Arrays.sort(found, (a, b) -> a.getFilename().compareTo(b.getFilename()));
		return found;
	}

	private static List<String> names(Resource[] resources) {
		return Arrays.stream(resources).map(Resource::getFilename).toList();
	}

	/**
	 * The ledger table as the database describes it (columns, types, defaults, generated columns, constraints,
	 * indexes and their conditions, and on MariaDB the engine and collation), without the schema's name.
	 */
	static List<String> tableOf(FreshSchema schema) {
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		List<String> table = new ArrayList<>();
		switch (schema.database()) {
			case POSTGRESQL -> {
				table.addAll(jdbc.queryForList("SELECT concat_ws(' ', column_name, data_type, character_maximum_length,"
						+ " datetime_precision, is_nullable, column_default, is_identity, identity_generation,"
						+ " is_generated, generation_expression) FROM information_schema.columns"
						+ " WHERE table_schema = current_schema() AND table_name = 'tool_audit' ORDER BY ordinal_position",
						String.class));
				table.addAll(jdbc.queryForList("SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint"
						+ " WHERE conrelid = 'tool_audit'::regclass ORDER BY conname", String.class));
				table.addAll(jdbc.queryForList("SELECT replace(indexdef, current_schema() || '.', '') FROM pg_indexes"
						+ " WHERE schemaname = current_schema() AND tablename = 'tool_audit' ORDER BY indexname",
						String.class));
			}
			case MARIADB -> table.addAll(
					jdbc.query("SHOW CREATE TABLE tool_audit", (row, n) -> row.getString(2)));
			case H2 -> table.addAll(jdbc.queryForList("SCRIPT NODATA NOPASSWORDS NOSETTINGS TABLE tool_audit", String.class)
				.stream()
				.filter((line) -> line.contains("TOOL_AUDIT"))
				.toList());
		}
		assertThat(String.join("\n", table)).as("the description of the table")
			.containsIgnoringCase("reconcile_after")
			.containsIgnoringCase("tool_audit_key_uk")
			.containsIgnoringCase("tool_audit_status_ck")
			.containsIgnoringCase("tool_audit_started_at_ix");
		return table;
	}

}
