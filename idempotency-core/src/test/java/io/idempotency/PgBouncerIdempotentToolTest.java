package io.idempotency;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.EnabledWithPgBouncer;
import io.idempotency.testsupport.PgBouncer;
import io.idempotency.testsupport.TestDatabase;
import org.junit.jupiter.api.AfterEach;

/**
 * The idempotent tools' contract on PostgreSQL through PgBouncer in transaction pooling mode, with pgJDBC's {@code
 * prepareThreshold=0}: with {@code -Pclusters}.
 */
@EnabledWithPgBouncer
class PgBouncerIdempotentToolTest extends IdempotentToolContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return PgBouncer.shared().dataSource();
	}

	/** Lock waits that time out: set by PgBouncer on each server connection, as a session's SET does not last. */
	@Override
	HikariDataSource shortLockWaitPool() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PgBouncer.shared().shortLockWaitsUrl());
		config.setMaximumPoolSize(4);
		config.setPoolName("short-lock-waits");
		return new HikariDataSource(config);
	}

	/**
	 * The tests of callers' transactions above read committed set the isolation through JDBC, which pgJDBC sets on
	 * the session of whichever server connection runs it: closed, so that no later test runs at that isolation.
	 */
	@AfterEach
	void closeServerConnections() {
		PgBouncer.shared().closeServerConnections();
	}

}
