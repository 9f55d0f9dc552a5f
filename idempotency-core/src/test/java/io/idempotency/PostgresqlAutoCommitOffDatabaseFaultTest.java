package io.idempotency;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;

/** The fault sweep on a pool with auto-commit off, where every write of the ledger ends in a commit of its own. */
class PostgresqlAutoCommitOffDatabaseFaultTest extends DatabaseFaultContractTests {

	private HikariDataSource pool;

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource applicationDataSource(DataSource database) {
		if (this.pool == null) {
			HikariDataSource shared = (HikariDataSource) database;
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(shared.getJdbcUrl());
			config.setUsername(shared.getUsername());
			config.setPassword(shared.getPassword());
			config.setMaximumPoolSize(4);
			config.setAutoCommit(false);
			this.pool = new HikariDataSource(config);
		}
		return this.pool;
	}

	@AfterAll
	void closePool() {
		if (this.pool != null) {
			this.pool.close();
		}
	}

}
