package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2ApprovalTest extends ApprovalContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	@Override
	DataSource dataSource() {
		return dataSource;
	}

}
