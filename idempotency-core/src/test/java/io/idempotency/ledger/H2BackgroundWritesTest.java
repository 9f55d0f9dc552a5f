package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2BackgroundWritesTest extends BackgroundWritesContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.H2);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.H2);
	}

}
