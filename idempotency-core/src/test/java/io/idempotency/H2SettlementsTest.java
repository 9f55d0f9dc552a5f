package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2SettlementsTest extends SettlementsContractTests {

	/** One in-memory database for the whole suite: each call of {@code TestDatabases} makes a new one. */
	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	@Override
	DataSource dataSource() {
		return dataSource;
	}

}
