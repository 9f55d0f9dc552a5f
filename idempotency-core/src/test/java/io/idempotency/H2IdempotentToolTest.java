package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2IdempotentToolTest extends IdempotentToolContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.H2);
	}

	@Override
	DataSource dataSource() {
		return dataSource;
	}

}
