package io.idempotency;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbIdempotentToolTest extends IdempotentToolContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
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

	@Test
	void aResultTheDatabaseRefusesIsRecordedAsDoneWithoutItNotLeftInProgress() {
		HikariDataSource shared = (HikariDataSource) dataSource();
		HikariConfig config = new HikariConfig();
		// The database takes at most 256 KiB in one statement here, less than the ledger's own limit.
		String url = shared.getJdbcUrl();
		config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "maxAllowedPacket=262144");
		config.setUsername(shared.getUsername());
		config.setPassword(shared.getPassword());
		config.setMaximumPoolSize(4);
		try (HikariDataSource small = new HikariDataSource(config);
				org.springframework.context.annotation.AnnotationConfigApplicationContext context = new org.springframework.context.annotation.AnnotationConfigApplicationContext()) {
			context.registerBean(DataSource.class, () -> new org.springframework.jdbc.datasource.DelegatingDataSource(small));
			context.register(Tools.class);
			context.refresh();
			QuoteTools tools = context.getBean(QuoteTools.class);
			io.idempotency.run.Run run = new io.idempotency.run.Run("packet-run", "rep-1");

			assertThat(io.idempotency.run.RunContext.supply(run, () -> tools.exportText("Henderson", 512))).hasSize(512 * 1024);

			org.assertj.core.api.Assertions.assertThatExceptionOfType(ResultNotStoredException.class)
				.as("done, without its result; not in progress")
				.isThrownBy(() -> io.idempotency.run.RunContext.supply(run, () -> tools.exportText("Henderson", 512)));
			assertThat(tools.exports()).isEqualTo(1);
		}
	}

}
