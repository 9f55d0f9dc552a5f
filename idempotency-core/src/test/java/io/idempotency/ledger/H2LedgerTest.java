package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class H2LedgerTest extends LedgerContractTests {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	@Override
	int replayRoundTrips() {
		return 2;
	}

	@Override
	int leaseRoundTrips() {
		return 4;
	}

	@Override
	DataSource dataSource() {
		return dataSource;
	}

	@Override
	boolean skipLockedFillsTheLimit() {
		return false;
	}

}
