package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class PostgresqlHostileInputTest extends HostileInputContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	@Override
	boolean refusesInvalidJson() {
		return true;
	}

	@Override
	String jsonParameter() {
		return "CAST(? AS jsonb)";
	}

}
