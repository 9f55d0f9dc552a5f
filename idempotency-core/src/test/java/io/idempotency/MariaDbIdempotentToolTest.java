package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class MariaDbIdempotentToolTest extends IdempotentToolContractTests {

	@Override
	int transactionalCallRoundTrips() {
		return 8;
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Override
	String identityColumn() {
		return "BIGINT AUTO_INCREMENT PRIMARY KEY";
	}

}
