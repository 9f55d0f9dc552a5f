package io.idempotency;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbIdempotentToolTest extends IdempotentToolContractTests {

	@Override
	String shortLockWaitSql() {
		return "SET SESSION innodb_lock_wait_timeout = 1";
	}

	@Override
	int transactionalCallRoundTrips() {
		return 8;
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Override
	String identityColumn() {
		return "BIGINT AUTO_INCREMENT PRIMARY KEY";
	}

	@Test
	void aPoolAtReadCommittedSavesTheTransactionalCallItsIsolationRoundTrips() {
		HikariDataSource shared = (HikariDataSource) dataSource();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(shared.getJdbcUrl());
		config.setUsername(shared.getUsername());
		config.setPassword(shared.getPassword());
		config.setMaximumPoolSize(4);
		config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
		try (HikariDataSource readCommitted = new HikariDataSource(config)) {
			assertThat(roundTripsOfATransactionalCall(readCommitted)).isEqualTo(5);
		}
	}

}
