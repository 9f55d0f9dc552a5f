package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2SecretSweepTest extends SecretSweepContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.H2);
	}

}
