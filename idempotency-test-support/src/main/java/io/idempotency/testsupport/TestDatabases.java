package io.idempotency.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.YugabyteDBYSQLContainer;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The one place where tests find a real database. No test names a URL; each asks for a
 * {@link TestDatabase} and gets a pooled {@link DataSource}, shared for the whole test JVM.
 *
 * <p>A server is found in this order:
 * <ol>
 * <li>a JDBC URL in the environment ({@code IDEMPOTENCY_TEST_POSTGRES_URL},
 * {@code IDEMPOTENCY_TEST_MARIADB_URL}), as {@code .ci/run} sets for the machine's own servers;</li>
 * <li>a Testcontainers container, where a Docker engine is configured and answers;</li>
 * <li>an embedded server: real PostgreSQL or MariaDB binaries from Maven Central, started in a temporary
 * folder and stopped when the test JVM ends, so that a machine with nothing but a JDK runs every test.</li>
 * </ol>
 * Only where no embedded binary exists for the platform (MariaDB's are for Linux x86-64) are that
 * database's tests skipped, with the reason; when the environment variable {@code CI} is set they fail
 * instead, so that CI never passes by skipping.
 *
 * <p>H2 needs no server: each call gives a new, empty in-memory database. YugabyteDB has no embedded server:
 * {@link #yugabyteDb()} connects to one named in the environment or runs one where Docker is available, and
 * its tests are skipped, with the reason, where there is neither, in CI too.
 */
public final class TestDatabases {

	private static final Logger logger = LoggerFactory.getLogger(TestDatabases.class);

	private static final Map<TestDatabase, DataSource> servers = new EnumMap<>(TestDatabase.class);

	private static final Map<TestDatabase, String> unavailable = new EnumMap<>(TestDatabase.class);

	private static final AtomicInteger h2Count = new AtomicInteger();

	private TestDatabases() {
	}

	/**
	 * A pooled data source on the given database, started or connected on first use.
	 * @throws org.opentest4j.TestAbortedException if no server can be found or started for the database
	 * outside CI (the calling test is then reported as skipped, with the reason)
	 * @throws IllegalStateException if no server can be found or started in CI
	 */
	public static synchronized DataSource dataSource(TestDatabase database) {
		if (database == TestDatabase.H2) {
			return pooled("jdbc:h2:mem:test-" + h2Count.incrementAndGet() + ";DB_CLOSE_DELAY=-1", "sa", "");
		}
		DataSource found = servers.get(database);
		if (found != null) {
			return found;
		}
		String reason = unavailable.get(database);
		if (reason == null) {
			try {
				found = find(database);
				servers.put(database, found);
				return found;
			}
			catch (ServerUnavailable ex) {
				reason = ex.getMessage();
				unavailable.put(database, reason);
			}
		}
		throw unavailable(reason, System.getenv("CI") != null);
	}

	/**
	 * What a test that needs a database no one can provide gets: a skip with the reason, or, in CI, a
	 * failure, so that CI never passes by skipping.
	 */
	static RuntimeException unavailable(String reason, boolean ci) {
		if (ci) {
			return new IllegalStateException(reason + ". CI must run every database's tests.");
		}
		return new TestAbortedException(reason);
	}

	private static DataSource find(TestDatabase database) {
		String url = System.getenv(database.urlVariable());
		if (url != null && !url.isBlank()) {
			logger.info("{} for tests: {} from {}", database, url, database.urlVariable());
			return pooled(url, null, null);
		}
		if (dockerConfigured() && dockerAvailable()) {
			return (database == TestDatabase.POSTGRESQL) ? postgresqlContainer() : mariadbContainer();
		}
		return (database == TestDatabase.POSTGRESQL) ? embeddedPostgresql() : EmbeddedMariaDb.start();
	}

	/**
	 * Whether a Docker engine may be there to ask. Without this check, Testcontainers tries every way it
	 * knows to reach one and logs each failure, on every run of a machine without Docker.
	 */
	private static boolean dockerConfigured() {
		return System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"))
				|| Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"))
				|| Files.exists(Path.of(System.getProperty("user.home"), ".docker", "run", "docker.sock"));
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	@SuppressWarnings("resource")
	private static DataSource postgresqlContainer() {
		PostgreSQLContainer container = new PostgreSQLContainer("postgres:15-alpine");
		container.start();
		logger.info("PostgreSQL for tests: Testcontainers at {}", container.getJdbcUrl());
		return pooled(container.getJdbcUrl(), container.getUsername(), container.getPassword());
	}

	@SuppressWarnings("resource")
	private static DataSource mariadbContainer() {
		MariaDBContainer container = new MariaDBContainer("mariadb:10.11");
		container.start();
		logger.info("MariaDB for tests: Testcontainers at {}", container.getJdbcUrl());
		return pooled(container.getJdbcUrl(), container.getUsername(), container.getPassword());
	}

	private static DataSource embeddedPostgresql() {
		try {
			EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
			Runtime.getRuntime().addShutdownHook(new Thread(() -> {
				try {
					postgres.close();
				}
				catch (IOException ex) {
					logger.warn("Could not stop the embedded PostgreSQL", ex);
				}
			}, "embedded-postgresql-stop"));
			String url = postgres.getJdbcUrl("postgres", "postgres");
			logger.info("PostgreSQL for tests: embedded at {}", url);
			return pooled(url, null, null);
		}
		catch (IOException | RuntimeException ex) {
			throw new ServerUnavailable("No PostgreSQL for tests: set " + TestDatabase.POSTGRESQL.urlVariable()
					+ " (for example jdbc:postgresql://127.0.0.1:5432/test?user=postgres) or run a Docker engine;"
					+ " the embedded PostgreSQL did not start: " + ex, ex);
		}
	}

	/**
	 * The environment variable that names a running YugabyteDB's JDBC URL (its YSQL API, on PostgreSQL's
	 * protocol), for example {@code jdbc:postgresql://127.0.0.1:5433/yugabyte?user=yugabyte}.
	 */
	public static final String YUGABYTEDB_URL_VARIABLE = "IDEMPOTENCY_TEST_YUGABYTEDB_URL";

	/** The image of the YugabyteDB container, unless {@code IDEMPOTENCY_TEST_YUGABYTEDB_IMAGE} names another. */
	static final String YUGABYTEDB_IMAGE = "yugabytedb/yugabyte:2.14.4.0-b26";

	private static DataSource yugabyteDb;

	/**
	 * Whether a YugabyteDB can be had: a server named by {@value #YUGABYTEDB_URL_VARIABLE}, or a Docker engine
	 * to run one in. Unlike the other databases it has no embedded server, so without either its tests are
	 * skipped, with the reason, in CI too: they run where Docker is available.
	 */
	public static boolean yugabyteDbAvailable() {
		String url = System.getenv(YUGABYTEDB_URL_VARIABLE);
		return (url != null && !url.isBlank()) || (dockerConfigured() && dockerAvailable());
	}

	/**
	 * A pooled data source on YugabyteDB: the server named by {@value #YUGABYTEDB_URL_VARIABLE}, else a
	 * Testcontainers container, started on first use and shared for the whole test JVM.
	 * @throws TestAbortedException if there is neither
	 */
	@SuppressWarnings("resource")
	public static synchronized DataSource yugabyteDb() {
		if (yugabyteDb != null) {
			return yugabyteDb;
		}
		String url = System.getenv(YUGABYTEDB_URL_VARIABLE);
		if (url != null && !url.isBlank()) {
			logger.info("YugabyteDB for tests: {} from {}", url, YUGABYTEDB_URL_VARIABLE);
			yugabyteDb = pooled(url, null, null);
			return yugabyteDb;
		}
		if (!dockerConfigured() || !dockerAvailable()) {
			throw new TestAbortedException("No YugabyteDB for tests: it runs in a Docker container, and no Docker engine"
					+ " answers here; set " + YUGABYTEDB_URL_VARIABLE + " to use a running server");
		}
		String image = System.getenv().getOrDefault("IDEMPOTENCY_TEST_YUGABYTEDB_IMAGE", YUGABYTEDB_IMAGE);
		YugabyteDBYSQLContainer container = new YugabyteDBYSQLContainer(DockerImageName.parse(image));
		container.start();
		logger.info("YugabyteDB for tests: Testcontainers at {}", container.getJdbcUrl());
		yugabyteDb = pooled(container.getJdbcUrl(), container.getUsername(), container.getPassword());
		return yugabyteDb;
	}

	static DataSource pooled(String url, String username, String password) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(username);
		config.setPassword(password);
		config.setMaximumPoolSize(24);
		config.setPoolName("test-" + url.replaceAll("[^a-z0-9]+", "-"));
		return new HikariDataSource(config);
	}

	/** No server of a database could be found or started here. */
	static final class ServerUnavailable extends RuntimeException {

		private static final long serialVersionUID = 1L;

		ServerUnavailable(String message, Throwable cause) {
			super(message, cause);
		}

	}

}
