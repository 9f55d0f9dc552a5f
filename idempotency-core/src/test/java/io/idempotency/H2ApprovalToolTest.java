package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2ApprovalToolTest extends ApprovalToolContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	@Override
	DataSource dataSource() {
		return dataSource;
	}

}
