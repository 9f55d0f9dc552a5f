package io.idempotency.autoconfigure.observability;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

/** Health while the ledger's table is locked, on PostgreSQL: {@code LOCK TABLE} in an open transaction. */
class PostgresqlLockedLedgerTest extends LockedLedgerContractTests {

	@Override
	DataSource database() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	@Override
	Lock lock(DataSource database, String table) throws SQLException {
		Connection connection = database.getConnection();
		connection.setAutoCommit(false);
		try (Statement statement = connection.createStatement()) {
			statement.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
		}
		return () -> {
			try (connection) {
				connection.rollback();
				connection.setAutoCommit(true);
			}
		};
	}

}
