package io.idempotency.autoconfigure;

import javax.sql.DataSource;

import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** The schema initializer looks for the ledger table where the ledger will use it, and nowhere else. */
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

	private static void initialize(DataSource dataSource, String tableName) {
		IdempotencyProperties.Jdbc settings = new IdempotencyProperties.Jdbc();
		settings.setTableName(tableName);
		settings.setInitializeSchema(DatabaseInitializationMode.ALWAYS);
		new LedgerSchemaInitializer(dataSource, settings, new DefaultResourceLoader()).afterPropertiesSet();
	}

}
