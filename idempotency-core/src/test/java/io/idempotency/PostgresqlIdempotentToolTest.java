package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class PostgresqlIdempotentToolTest extends IdempotentToolContractTests {

	@Override
	String shortLockWaitSql() {
		return "SET lock_timeout = '500ms'";
	}

	@Override
	int transactionalCallRoundTrips() {
		return 5;
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

}
