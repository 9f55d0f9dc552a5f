package io.idempotency.autoconfigure.soak;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

class PostgresqlSoakTest extends SoakContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource database() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	@Override
	void insertOldRows(JdbcTemplate jdbc, String table, int rows) {
		jdbc.update("INSERT INTO " + table + " (idempotency_key, run_id, tool, arguments, status, started_at, finished_at)"
				+ " SELECT md5(i::text) || md5((-i)::text), 'old', 'reserve', '{}', 'succeeded',"
				+ " CURRENT_TIMESTAMP - INTERVAL '2 days', CURRENT_TIMESTAMP - INTERVAL '2 days'"
				+ " FROM generate_series(1, " + rows + ") AS i");
	}

}
