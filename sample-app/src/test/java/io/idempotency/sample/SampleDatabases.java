package io.idempotency.sample;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A server shared with other tests gets the sample's tables in a schema (PostgreSQL) or database (MariaDB)
 * of their own, {@value #NAME}, so that names such as {@code quotes} never meet another test's.
 */
final class SampleDatabases {

	static final String NAME = "sample_app";

	private SampleDatabases() {
	}

	static String postgresql(String serverUrl) {
		execute(serverUrl, "CREATE SCHEMA IF NOT EXISTS " + NAME);
		return serverUrl + (serverUrl.contains("?") ? "&" : "?") + "currentSchema=" + NAME;
	}

	static String mariadb(String serverUrl) {
		execute(serverUrl, "CREATE DATABASE IF NOT EXISTS " + NAME);
		return serverUrl.replaceFirst("^(jdbc:mariadb://[^/?]+/)[^?]*", "$1" + NAME);
	}

	private static void execute(String url, String sql) {
		try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not prepare " + url + " for the sample: " + ex.getMessage(), ex);
		}
	}

}
