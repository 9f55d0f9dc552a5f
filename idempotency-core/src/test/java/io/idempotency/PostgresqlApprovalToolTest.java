package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class PostgresqlApprovalToolTest extends ApprovalToolContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

}
