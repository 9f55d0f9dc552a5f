package io.idempotency.ai;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2ApprovedResumeTest extends ApprovedResumeContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.H2);
	}

}
