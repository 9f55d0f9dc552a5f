package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.EnabledWithGaleraCluster;
import io.idempotency.testsupport.GaleraCluster;
import io.idempotency.testsupport.TestDatabase;

/**
 * The idempotent tools' contract on a node of a three-node MariaDB Galera cluster, where the ledger makes its reads wait for the
 * cluster's earlier commits: with {@code -Pclusters}.
 */
@EnabledWithGaleraCluster
class GaleraClusterIdempotentToolTest extends IdempotentToolContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource dataSource() {
		return GaleraCluster.shared().dataSource(1);
	}

}
