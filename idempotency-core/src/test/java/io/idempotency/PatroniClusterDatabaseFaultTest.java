package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.EnabledWithPatroniCluster;
import io.idempotency.testsupport.PatroniCluster;
import io.idempotency.testsupport.TestDatabase;

/**
 * Lost connections, deadlocks and serialization failures at every step on PostgreSQL with Patroni (a primary and two standbys, one synchronous), through the
 * multi-host URL that finds the primary: with {@code -Pclusters}.
 */
@EnabledWithPatroniCluster
class PatroniClusterDatabaseFaultTest extends DatabaseFaultContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return PatroniCluster.shared().dataSource();
	}

}
