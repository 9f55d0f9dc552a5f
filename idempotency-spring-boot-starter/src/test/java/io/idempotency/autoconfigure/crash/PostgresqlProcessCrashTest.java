package io.idempotency.autoconfigure.crash;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class PostgresqlProcessCrashTest extends ProcessCrashContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

}
