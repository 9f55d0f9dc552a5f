package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.EnabledWithPatroniCluster;
import io.idempotency.testsupport.PatroniCluster;
import io.idempotency.testsupport.TestDatabase;

/**
 * The ledger's contract on PostgreSQL with Patroni (a primary and two standbys, one synchronous), through
 * HAProxy, whose checks of Patroni's REST API lead to the primary: with {@code -Pclusters}.
 */
@EnabledWithPatroniCluster
class PatroniClusterHaproxyLedgerTest extends LedgerContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return PatroniCluster.shared().dataSourceThroughHaproxy();
	}

}
