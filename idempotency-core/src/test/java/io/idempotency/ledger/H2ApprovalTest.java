package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2ApprovalTest extends ApprovalContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.H2);
	}

}
