package io.idempotency.autoconfigure;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The heartbeat keeps one connection of the ledger's pool for itself from its first beat: a pool of one would
 * leave none for calls, each of which would wait for a connection and then be refused. The start stops instead,
 * saying what to set.
 */
class LedgerPoolSizeTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:pool-size;DB_CLOSE_DELAY=-1",
				"idempotency.jdbc.initialize-schema=always");

	@Configuration(proxyBeanMethods = false)
	static class UnpooledLedger {

		@Bean
		@IdempotencyDataSource
		DataSource ledgerDataSource() {
			return new DriverManagerDataSource("jdbc:h2:mem:unpooled-ledger;DB_CLOSE_DELAY=-1", "sa", "");
		}

	}

	@Test
	void aPoolOfOneConnectionStopsTheStartNamingTheSettingToRaise() {
		this.runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=1")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("HikariCP pool")
				.hasMessageContaining("at most 1 connection")
				.hasMessageContaining("the ledger's heartbeat keeps one for itself")
				.hasMessageContaining("at least 2 connections")
				.hasMessageContaining("spring.datasource.hikari.maximum-pool-size"));
	}

	@Test
	void aPoolOfTwoConnectionsStarts() {
		this.runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=2")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(IdempotencyMaintenance.class));
	}

	@Test
	void aDataSourceThatIsNoPoolOfKnownSizeStarts() {
		this.runner.withUserConfiguration(UnpooledLedger.class)
			.withPropertyValues("spring.datasource.hikari.maximum-pool-size=1")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(IdempotencyMaintenance.class));
	}

}
