package io.idempotency.ledger;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * MariaDB Galera Cluster, as the ledger sees it: every node a primary, replication synchronous, but a
 * transaction is certified against the other nodes' only at its commit, and a node may read before it has applied
 * what another node committed. What the ledger does about it, once it knows it is on a Galera node:
 * <ul>
 * <li>a claim whose commit fails certification (reported as a deadlock) lost the key to a claim on another node:
 * it is read again, as any claim that lost a lock conflict is, never taken as won;</li>
 * <li>the reads that answer a lost claim, find a row, and choose stale rows for the reconciler wait until the node
 * has applied everything committed in the cluster before them ({@code wsrep_sync_wait = 1}, for that statement
 * only), so that they see another node's claim and outcome;</li>
 * <li>an outcome whose write fails certification is written again (as on every database after a deadlock).</li>
 * </ul>
 * On a single MariaDB or MySQL server nothing changes: the statements and their round trips are the same.
 */
final class Galera {

	/** What a read is prefixed with on a Galera node: it waits for the cluster's earlier commits. */
	static final String CAUSAL_READ = "SET STATEMENT wsrep_sync_wait = 1 FOR ";

	private Galera() {
	}

	/**
	 * Whether the ledger's database is a Galera node ({@code wsrep_on} is {@code ON}); asked once, when the ledger
	 * starts, and only of MariaDB and MySQL.
	 * @throws IllegalStateException on a Galera node of a server other than MariaDB, whose per-statement setting the
	 * ledger uses
	 */
	static boolean detect(LedgerDialect dialect, JdbcTemplate jdbc) {
		if (dialect != LedgerDialect.MYSQL) {
			return false;
		}
		Map<String, String> variables = new HashMap<>();
		jdbc.query("SHOW VARIABLES WHERE Variable_name IN ('wsrep_on', 'version')",
				(row) -> {
					variables.put(row.getString(1).toLowerCase(Locale.ROOT), row.getString(2));
				});
		if (!"ON".equalsIgnoreCase(variables.get("wsrep_on"))) {
			return false;
		}
		String version = variables.getOrDefault("version", "");
		if (!version.toLowerCase(Locale.ROOT).contains("mariadb")) {
			throw new IllegalStateException("The idempotency ledger's database is a Galera node of server version "
					+ version + "; the ledger supports Galera on MariaDB only, where it can make each read wait for"
					+ " the cluster's earlier commits (SET STATEMENT wsrep_sync_wait = 1 FOR ...)");
		}
		return true;
	}

}
