package io.idempotency.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * An empty schema of its own on a test database, for a test that needs to see everything in it (what a
 * migration made, the tables Flyway or Liquibase keep): a new schema on PostgreSQL, a new database on MariaDB
 * (its schemas), a new in-memory database on H2. Its {@link #dataSource()} connects to it by default, so that
 * unqualified names find it; {@link #close()} drops it and everything in it. The server's user must be allowed to
 * create schemas (on MariaDB, databases), as the machine's servers' and the embedded servers' users are.
 */
public final class FreshSchema implements AutoCloseable {

	private final TestDatabase database;

	private final String name;

	private final HikariDataSource dataSource;

	private FreshSchema(TestDatabase database, String name, HikariDataSource dataSource) {
		this.database = database;
		this.name = name;
		this.dataSource = dataSource;
	}

	/** A new, empty schema on the database. */
	public static FreshSchema on(TestDatabase database) {
		String name = "fresh_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		if (database == TestDatabase.H2) {
			return new FreshSchema(database, name, pool("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", ""));
		}
		HikariDataSource server = (HikariDataSource) TestDatabases.dataSource(database);
		String url = server.getJdbcUrl();
		if (database == TestDatabase.POSTGRESQL) {
			execute(server, "CREATE SCHEMA " + name);
			url = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + name;
		}
		else {
			execute(server, "CREATE DATABASE " + name);
			url = url.replaceFirst("^(jdbc:mariadb://[^/?]+/)[^?]*", "$1" + name);
		}
		return new FreshSchema(database, name, pool(url, server.getUsername(), server.getPassword()));
	}

	/** The schema's name (the database's, on MariaDB). */
	public String name() {
		return this.name;
	}

	/** The database it is on. */
	public TestDatabase database() {
		return this.database;
	}

	/** A pool whose connections use this schema. */
	public DataSource dataSource() {
		return this.dataSource;
	}

	/** Drops the schema and everything in it, and closes its pool. */
	@Override
	public void close() {
		try {
			switch (this.database) {
				case POSTGRESQL -> execute(TestDatabases.dataSource(this.database), "DROP SCHEMA " + this.name + " CASCADE");
				case MARIADB -> execute(TestDatabases.dataSource(this.database), "DROP DATABASE " + this.name);
				case H2 -> execute(this.dataSource, "DROP ALL OBJECTS");
			}
		}
		finally {
			this.dataSource.close();
		}
	}

	private static HikariDataSource pool(String url, String username, String password) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(username);
		config.setPassword(password);
		config.setMaximumPoolSize(8);
		config.setMinimumIdle(0);
		config.setPoolName("fresh-" + url.replaceAll("[^a-z0-9]+", "-"));
		return new HikariDataSource(config);
	}

	private static void execute(DataSource dataSource, String sql) {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run " + sql + ": " + ex.getMessage(), ex);
		}
	}

}
