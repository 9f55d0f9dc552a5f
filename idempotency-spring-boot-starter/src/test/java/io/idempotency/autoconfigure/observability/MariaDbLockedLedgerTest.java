package io.idempotency.autoconfigure.observability;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

/** Health while the ledger's table is locked, on MariaDB: {@code LOCK TABLES ... WRITE}. */
class MariaDbLockedLedgerTest extends LockedLedgerContractTests {

	@Override
	DataSource database() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Override
	Lock lock(DataSource database, String table) throws SQLException {
		Connection connection = database.getConnection();
		try (Statement statement = connection.createStatement()) {
			statement.execute("LOCK TABLES " + table + " WRITE");
		}
		return () -> {
			try (connection; Statement statement = connection.createStatement()) {
				statement.execute("UNLOCK TABLES");
			}
		};
	}

}
