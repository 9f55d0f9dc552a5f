package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class MariaDbDatabaseFaultTest extends DatabaseFaultContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

}
