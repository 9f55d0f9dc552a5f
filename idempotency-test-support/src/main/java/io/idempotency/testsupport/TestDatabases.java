package io.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The one place where tests find a real database. No test names a URL; each asks for a
 * {@link TestDatabase} and gets a pooled {@link DataSource}, shared for the whole test JVM.
 *
 * <p>A server is found in this order:
 * <ol>
 * <li>a JDBC URL in the environment ({@code IDEMPOTENCY_TEST_POSTGRES_URL},
 * {@code IDEMPOTENCY_TEST_MARIADB_URL}), as {@code .ci/run} sets for the machine's own servers;</li>
 * <li>a Testcontainers container, where a Docker engine answers;</li>
 * <li>for PostgreSQL, an embedded server (real PostgreSQL binaries from Maven Central), so that a
 * machine with nothing but a JDK runs every PostgreSQL test.</li>
 * </ol>
 * A MariaDB test that finds no server is skipped on a developer's machine and fails when the
 * environment variable {@code CI} is set, so that CI never passes by skipping.
 *
 * <p>H2 needs no server: each call gives a new, empty in-memory database.
 */
public final class TestDatabases {

	private static final Logger logger = LoggerFactory.getLogger(TestDatabases.class);

	private static final Map<TestDatabase, DataSource> servers = new EnumMap<>(TestDatabase.class);

	private static final AtomicInteger h2Count = new AtomicInteger();

	private TestDatabases() {
	}

	/**
	 * A pooled data source on the given database, started or connected on first use.
	 * @throws org.opentest4j.TestAbortedException if no MariaDB server can be found outside CI
	 */
	public static synchronized DataSource dataSource(TestDatabase database) {
		if (database == TestDatabase.H2) {
			return pooled("jdbc:h2:mem:test-" + h2Count.incrementAndGet() + ";DB_CLOSE_DELAY=-1", "sa", "");
		}
		return servers.computeIfAbsent(database, TestDatabases::find);
	}

	private static DataSource find(TestDatabase database) {
		String url = System.getenv(database.urlVariable());
		if (url != null && !url.isBlank()) {
			logger.info("{} for tests: {} from {}", database, url, database.urlVariable());
			return pooled(url, null, null);
		}
		if (dockerAvailable()) {
			return (database == TestDatabase.POSTGRESQL) ? postgresqlContainer() : mariadbContainer();
		}
		if (database == TestDatabase.POSTGRESQL) {
			return embeddedPostgresql();
		}
		String reason = "No MariaDB for tests: set " + database.urlVariable()
				+ " (for example jdbc:mariadb://127.0.0.1:3306/test?user=root) or run a Docker engine";
		if (System.getenv("CI") != null) {
			throw new IllegalStateException(reason + ". CI must run every database's tests.");
		}
		Assumptions.abort(reason);
		throw new AssertionError("unreachable");
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
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start an embedded PostgreSQL for the tests", ex);
		}
	}

	private static DataSource pooled(String url, String username, String password) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername(username);
		config.setPassword(password);
		config.setMaximumPoolSize(24);
		config.setPoolName("test-" + url.replaceAll("[^a-z0-9]+", "-"));
		return new HikariDataSource(config);
	}

}
