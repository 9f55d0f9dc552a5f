package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class MariaDbIdempotentToolTest extends IdempotentToolContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.MARIADB);

	@Override
	DataSource dataSource() {
		return dataSource;
	}

	@Override
	String identityColumn() {
		return "BIGINT AUTO_INCREMENT PRIMARY KEY";
	}

}
