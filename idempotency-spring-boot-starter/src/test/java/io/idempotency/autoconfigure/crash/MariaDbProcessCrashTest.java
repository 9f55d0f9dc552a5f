package io.idempotency.autoconfigure.crash;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class MariaDbProcessCrashTest extends ProcessCrashContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Override
	String secondsAgo(String column, int seconds) {
		// MariaDB's times are stored as UTC.
		return column + " < UTC_TIMESTAMP(6) - INTERVAL " + seconds + " SECOND";
	}

}
