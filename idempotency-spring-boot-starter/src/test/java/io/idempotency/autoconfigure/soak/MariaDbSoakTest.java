package io.idempotency.autoconfigure.soak;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

class MariaDbSoakTest extends SoakContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource database() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Override
	void insertOldRows(JdbcTemplate jdbc, String table, int rows) {
		// MariaDB's times are stored as UTC.
		jdbc.update("INSERT INTO " + table + " (idempotency_key, run_id, tool, arguments, status, started_at, finished_at)"
				+ " SELECT CONCAT(MD5(seq), MD5(-seq)), 'old', 'reserve', '{}', 'succeeded',"
				+ " UTC_TIMESTAMP(6) - INTERVAL 2 DAY, UTC_TIMESTAMP(6) - INTERVAL 2 DAY FROM seq_1_to_" + rows);
	}

}
