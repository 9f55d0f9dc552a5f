package io.idempotency.autoconfigure;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;

import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.util.ClassUtils;

/**
 * The ledger's pool must hold a connection for calls beside the one the heartbeat keeps for itself from its
 * first beat: checked at start where the pool says how large it may grow (HikariCP's, Spring Boot's default). A
 * pool of one would let no call claim its key: each would wait for a connection, then be refused.
 */
final class LedgerPoolSize {

	/** The fewest connections the ledger works with: the heartbeat's, and one for the calls. */
	static final int FEWEST_CONNECTIONS = 2;

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			LedgerPoolSize.class.getClassLoader());

	private LedgerPoolSize() {
	}

	/** Stops the start where the ledger's pool says it holds fewer connections than the ledger needs. */
	static void check(DataSource dataSource) {
		if (!HIKARI_PRESENT) {
			return;
		}
		Hikari.check(dataSource);
	}

	/** Loaded only where HikariCP is on the class path. */
	private static final class Hikari {

		static void check(DataSource dataSource) {
			HikariDataSource pool = DataSourceUnwrapper.unwrap(dataSource, HikariConfigMXBean.class,
					HikariDataSource.class);
			if (pool == null || pool.getMaximumPoolSize() >= FEWEST_CONNECTIONS) {
				return;
			}
			throw new IllegalStateException("The idempotency ledger's DataSource is a HikariCP pool ('"
					+ pool.getPoolName() + "') of at most " + pool.getMaximumPoolSize() + " connection, and the"
					+ " ledger's heartbeat keeps one for itself from its first beat: no call could claim its key (each"
					+ " would wait for a connection, then be refused). Give the pool at least " + FEWEST_CONNECTIONS
					+ " connections, one more than the application needs (spring.datasource.hikari.maximum-pool-size,"
					+ " or the pool of the DataSource marked @IdempotencyDataSource)");
		}

	}

}
