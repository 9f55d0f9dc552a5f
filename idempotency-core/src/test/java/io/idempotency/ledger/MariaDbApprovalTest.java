package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

class MariaDbApprovalTest extends ApprovalContractTests {

	/**
	 * On a pool whose auto-commit is off, a claim's statements share one transaction at MariaDB's repeatable read:
	 * a claim that loses the take of an approved row to another is answered in progress, never with an error.
	 */
	@org.junit.jupiter.api.Test
	void onAPoolWithAutoCommitOffEveryClaimRacingForAnApprovedCallIsAnswered() throws Exception {
		com.zaxxer.hikari.HikariDataSource shared = (com.zaxxer.hikari.HikariDataSource) this.dataSource;
		com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
		config.setJdbcUrl(shared.getJdbcUrl());
		config.setUsername(shared.getUsername());
		config.setPassword(shared.getPassword());
		config.setMaximumPoolSize(8);
		config.setAutoCommit(false);
		try (com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource(config)) {
			raceForApprovedCalls(new JdbcLedger(pool, TABLE, Redaction.defaults()),
					new JdbcLedger(pool, TABLE, Redaction.defaults()));
		}
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

}
