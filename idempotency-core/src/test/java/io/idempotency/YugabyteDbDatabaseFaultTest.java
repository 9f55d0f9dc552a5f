package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Lost connections, deadlocks and serialization failures at every step, on YugabyteDB (its YSQL API, on
 * PostgreSQL's protocol, with the ledger's PostgreSQL statements): where Docker is available, or a server is
 * named by {@code IDEMPOTENCY_TEST_YUGABYTEDB_URL}.
 */
@EnabledIf(value = "io.idempotency.testsupport.TestDatabases#yugabyteDbAvailable",
		disabledReason = "no YugabyteDB: it runs in a Docker container, and no Docker engine answers here"
				+ " (or set IDEMPOTENCY_TEST_YUGABYTEDB_URL)")
class YugabyteDbDatabaseFaultTest extends DatabaseFaultContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.yugabyteDb();
	}

}
