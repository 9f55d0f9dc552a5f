package io.idempotency.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;

/**
 * The floor of each path: the fewest statements that can do what it does, on the ledger table, sent by
 * hand on plain JDBC. No implementation of a ledger with a unique key can do less.
 */
final class Floors {

	private final DataSource dataSource;

	private final String insert;

	private final String complete;

	private final String read;

	private final String claim;

	Floors(TestDatabase database, DataSource dataSource) {
		this.dataSource = dataSource;
		String table = BenchmarkDatabase.TABLE;
		String json = (database == TestDatabase.POSTGRESQL) ? "CAST(? AS JSONB)" : "?";
		String now = (database == TestDatabase.MARIADB) ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
		this.insert = "INSERT INTO " + table + " (idempotency_key, run_id, user_id, tool, arguments, status, started_at)"
				+ " VALUES (?, ?, ?, ?, " + json + ", 'attempting', " + now + ")";
		this.complete = "UPDATE " + table + " SET status = 'succeeded', result = " + json + ", finished_at = " + now
				+ " WHERE idempotency_key = ? AND status = 'attempting'";
		this.read = "SELECT id, user_id, status, result, error, started_at, finished_at, replay_count,"
				+ " reconcile_attempts, reconcile_owner FROM " + table + " WHERE idempotency_key = ?";
		// The library's claim on PostgreSQL, as it sends it: for comparing the SQL alone with the whole call.
		this.claim = "WITH existing AS (" + this.read + "), won AS (INSERT INTO " + table
				+ " (idempotency_key, run_id, user_id, tool, arguments, status, started_at)"
				+ " SELECT ?, ?, ?, ?, CAST(? AS JSONB), 'attempting', CURRENT_TIMESTAMP"
				+ " WHERE NOT EXISTS (SELECT FROM existing) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id)"
				+ " SELECT won.id AS won_id, existing.* FROM (SELECT 1) AS one LEFT JOIN won ON TRUE"
				+ " LEFT JOIN existing ON TRUE";
	}

	/** An executed call: the claim's insert and the outcome's update, each committed. */
	int executed(String key, String arguments, String result) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			return claimAndComplete(connection, key, arguments, result);
		}
	}

	/** The least a call can cost: the claim's insert alone, committed. */
	int oneStatement(String key, String arguments) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement insert = connection.prepareStatement(this.insert)) {
			insert.setString(1, key);
			insert.setString(2, "floor-run");
			insert.setString(3, "user-1");
			insert.setString(4, "note");
			insert.setString(5, arguments);
			return insert.executeUpdate();
		}
	}

	/** A transactional call: the claim's insert and the outcome's update in one transaction. */
	int executedInOneTransaction(String key, String arguments, String result) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			connection.setAutoCommit(false);
			try {
				int updated = claimAndComplete(connection, key, arguments, result);
				connection.commit();
				return updated;
			}
			finally {
				connection.setAutoCommit(true);
			}
		}
	}

	/** A replay: one read of the row by its key. */
	String replay(String key) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement read = connection.prepareStatement(this.read)) {
			read.setString(1, key);
			try (ResultSet row = read.executeQuery()) {
				row.next();
				return row.getString("result");
			}
		}
	}

	/** A replay by the library's own claim statement (PostgreSQL), sent by hand. */
	String replayByTheClaimStatement(String key, String arguments) throws SQLException {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement claim = connection.prepareStatement(this.claim)) {
			claim.setString(1, key);
			claim.setString(2, key);
			claim.setString(3, "floor-run");
			claim.setString(4, "user-1");
			claim.setString(5, "note");
			claim.setString(6, arguments);
			try (ResultSet row = claim.executeQuery()) {
				row.next();
				return row.getString("result");
			}
		}
	}

	private int claimAndComplete(Connection connection, String key, String arguments, String result)
			throws SQLException {
		try (PreparedStatement insert = connection.prepareStatement(this.insert)) {
			insert.setString(1, key);
			insert.setString(2, "floor-run");
			insert.setString(3, "user-1");
			insert.setString(4, "note");
			insert.setString(5, arguments);
			insert.executeUpdate();
		}
		try (PreparedStatement complete = connection.prepareStatement(this.complete)) {
			complete.setString(1, result);
			complete.setString(2, key);
			return complete.executeUpdate();
		}
	}

}
