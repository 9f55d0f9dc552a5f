package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class PostgresqlIdempotentToolTest extends IdempotentToolContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.POSTGRESQL);

	@Override
	DataSource dataSource() {
		return dataSource;
	}

}
