package io.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.postgresql.Driver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PgBouncer in transaction pooling mode in front of the tests' PostgreSQL (the one
 * {@link TestDatabases#dataSource(TestDatabase)} gives: the server named by {@code IDEMPOTENCY_TEST_POSTGRES_URL},
 * else a container or the embedded one), from the machine's own {@code /usr/sbin/pgbouncer}, on a free loopback
 * port. Each transaction of a client runs on whichever server connection is free, and a statement outside a
 * transaction on any: nothing of a session outlives a transaction. It trusts the server's user, the only one it knows
 * ({@code auth_type = trust}, also its admin), and lets pgJDBC's {@code extra_float_digits} through. Run by root, it
 * runs as {@code nobody}, as PgBouncer refuses to run as root. Its configuration and log are in a temporary
 * directory.
 *
 * <p>One PgBouncer per test JVM: {@link #shared()} starts it on first use and stops it when the JVM ends.
 */
public final class PgBouncer {

	private static final Logger logger = LoggerFactory.getLogger(PgBouncer.class);

	static final String PROGRAM = "/usr/sbin/pgbouncer";

	/**
	 * What pgJDBC needs behind a pooler without prepared statements: no named server-side statements, which
	 * live in one server connection's session.
	 */
	public static final String NO_SERVER_PREPARED_STATEMENTS = "prepareThreshold=0";

	/**
	 * The server connections per database and user: few, as the test server's 100 are shared with the tests' own
	 * pools; clients wait for one while all are in transactions.
	 */
	private static final int POOL_SIZE = 10;

	private static final Duration READY_WITHIN = Duration.ofSeconds(30);

	private static PgBouncer shared;

	private final Path work;

	private final int port;

	private final String database;

	private final String user;

	private final Map<String, DataSource> dataSources = new HashMap<>();

	private Process process;

	private PgBouncer(Path work, int port, String database, String user) {
		this.work = work;
		this.port = port;
		this.database = database;
		this.user = user;
	}

	/** Why PgBouncer cannot be started here, or {@code null} when it can. */
	public static String unavailableReason() {
		if (!Files.isExecutable(Path.of(PROGRAM))) {
			return "no PgBouncer: missing " + PROGRAM + " (Debian: apt-get install pgbouncer)";
		}
		return null;
	}

	/** PgBouncer in front of the tests' PostgreSQL, started and ready on first use; stopped when the JVM ends. */
	public static synchronized PgBouncer shared() {
		if (shared == null) {
			Server server = Server.of(TestDatabases.dataSource(TestDatabase.POSTGRESQL));
			PgBouncer bouncer = new PgBouncer(ClusterProcesses.freshWorkDirectory("pgbouncer"), freePort(),
					server.database(), server.user());
			Runtime.getRuntime().addShutdownHook(new Thread(bouncer::stop, "pgbouncer-stop"));
			bouncer.start(server);
			shared = bouncer;
		}
		return shared;
	}

	/**
	 * The JDBC URL through PgBouncer, with these connection parameters added (for example
	 * {@value #NO_SERVER_PREPARED_STATEMENTS}, or none).
	 */
	public String url(String parameters) {
		return url(this.database, parameters);
	}

	private String url(String database, String parameters) {
		String url = "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database + "?user=" + this.user;
		return parameters.isEmpty() ? url : url + "&" + parameters;
	}

	/**
	 * The JDBC URL of the same database through PgBouncer, each server connection's lock waits timing out after
	 * 500 ms (PgBouncer's {@code connect_query}): a client's own {@code SET lock_timeout} would last only until
	 * its transaction ends, or, outside one, set it on a server connection that other clients get next.
	 */
	public String shortLockWaitsUrl() {
		return url(shortLockWaits(), NO_SERVER_PREPARED_STATEMENTS);
	}

	private String shortLockWaits() {
		return this.database + "_short_lock_waits";
	}

	/**
	 * Closes every server connection once it is released, and waits until they are closed: what a client set on
	 * a session (pgJDBC's {@code setTransactionIsolation} does, for the session of whichever server connection
	 * runs it) is gone, and the next transactions run on new server connections. Through its admin console
	 * ({@code RECONNECT}, then {@code WAIT_CLOSE}).
	 */
	public void closeServerConnections() {
		PgBouncerConsole.run(this.port, this.user, "RECONNECT", "WAIT_CLOSE");
	}

	/** A pooled data source through PgBouncer, as a team sets it: {@value #NO_SERVER_PREPARED_STATEMENTS}. */
	public DataSource dataSource() {
		return dataSource(NO_SERVER_PREPARED_STATEMENTS);
	}

	/** A pooled data source through PgBouncer with these connection parameters, the same one on every call. */
	public synchronized DataSource dataSource(String parameters) {
		return this.dataSources.computeIfAbsent(parameters, (added) -> TestDatabases.pooled(url(added), null, null));
	}

	private void start(Server server) {
		Path config = this.work.resolve("pgbouncer.ini");
		Path users = this.work.resolve("users.txt");
		write(users, "\"" + this.user + "\" \"\"\n");
		write(config, String.join("\n", "[databases]",
				this.database + " = " + server.connectString(),
				shortLockWaits() + " = " + server.connectString() + " connect_query='SET lock_timeout = 500' pool_size=4",
				"[pgbouncer]",
				"listen_addr = 127.0.0.1",
				"listen_port = " + this.port,
				"unix_socket_dir =",
				"auth_type = trust",
				"auth_file = " + users,
				"admin_users = " + this.user,
				"pool_mode = transaction",
				"default_pool_size = " + POOL_SIZE,
				"max_client_conn = 1000",
				// A server login refused (the server's connections all taken for a moment) is tried again soon.
				"server_login_retry = 1",
				"ignore_startup_parameters = extra_float_digits",
				""));
		List<String> command = new ArrayList<>(List.of(PROGRAM));
		if ("root".equals(System.getProperty("user.name"))) {
			command.addAll(List.of("-u", "nobody"));
		}
		command.add(config.toString());
		this.process = ClusterProcesses.start(command, log(), this.work);
		ClusterProcesses.await(READY_WITHIN, this::answers, "PgBouncer to answer on port " + this.port,
				() -> "\n--- pgbouncer:\n" + ClusterProcesses.tail(log(), 20));
		logger.info("PgBouncer (transaction pooling) on port {} in front of {} ({})", this.port, server.address(),
				this.work);
	}

	private boolean answers() {
		if (!this.process.isAlive()) {
			throw new IllegalStateException("PgBouncer exited with " + this.process.exitValue() + ":\n"
					+ ClusterProcesses.tail(log(), 20));
		}
		try (Connection connection = DriverManager.getConnection(url("connectTimeout=2"));
				Statement statement = connection.createStatement()) {
			statement.execute("SELECT 1");
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	private Path log() {
		return this.work.resolve("pgbouncer.log");
	}

	/** The last lines PgBouncer logged. */
	public String logTail(int lines) {
		return ClusterProcesses.tail(log(), lines);
	}

	/** Stops PgBouncer (SIGKILL), closes the data sources through it and deletes the working directory. */
	public synchronized void stop() {
		this.dataSources.values().forEach(ClusterProcesses::closeQuietly);
		this.dataSources.clear();
		ClusterProcesses.killNow(this.process);
		ClusterProcesses.delete(this.work);
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void write(Path file, String text) {
		try {
			Files.writeString(file, text);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The PostgreSQL server behind PgBouncer, as its pool's JDBC URL and credentials name it. */
	private record Server(String host, String port, String database, String user, String password) {

		static Server of(DataSource dataSource) {
			HikariDataSource pool = (HikariDataSource) dataSource;
			Properties url = Driver.parseURL(pool.getJdbcUrl(), new Properties());
			if (url == null) {
				throw new IllegalStateException("Not a PostgreSQL JDBC URL: " + pool.getJdbcUrl());
			}
			String user = (pool.getUsername() != null) ? pool.getUsername() : url.getProperty("user");
			String password = (pool.getPassword() != null) ? pool.getPassword() : url.getProperty("password");
			// A multi-host URL: the first host.
			return new Server(url.getProperty("PGHOST").split(",")[0], url.getProperty("PGPORT").split(",")[0],
					url.getProperty("PGDBNAME"), user, password);
		}

		String connectString() {
			String connect = "host=" + this.host + " port=" + this.port + " dbname=" + this.database + " user=" + this.user;
			return (this.password == null || this.password.isEmpty()) ? connect : connect + " password=" + this.password;
		}

		String address() {
			return this.host + ":" + this.port + "/" + this.database;
		}

	}

}
