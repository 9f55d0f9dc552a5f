package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2IdempotentToolTest extends IdempotentToolContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	@Override
	String shortLockWaitSql() {
		return "SET LOCK_TIMEOUT 500";
	}

	@Override
	int transactionalCallRoundTrips() {
		return 5;
	}

	@Override
	DataSource dataSource() {
		return dataSource;
	}

}
