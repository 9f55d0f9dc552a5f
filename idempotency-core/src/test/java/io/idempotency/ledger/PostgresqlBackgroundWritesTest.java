package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class PostgresqlBackgroundWritesTest extends BackgroundWritesContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

}
