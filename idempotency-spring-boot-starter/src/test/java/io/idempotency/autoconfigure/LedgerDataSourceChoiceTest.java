package io.idempotency.autoconfigure;

import java.util.List;

import javax.sql.DataSource;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.idempotency.ledger.JdbcLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger on a {@code DataSource} of its own, as the guide shows it: Boot's own {@code DataSource} backs off
 * once one is declared, so the guide declares the application's beside it, and a start where the marked one is
 * the only one while {@code spring.datasource.url} is set warns that the application now uses the ledger's.
 */
class LedgerDataSourceChoiceTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:application;DB_CLOSE_DELAY=-1",
				"idempotency.jdbc.initialize-schema=always");

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	private final Logger logger = (Logger) LoggerFactory.getLogger(IdempotencyLedgerAutoConfiguration.class);

	@Configuration(proxyBeanMethods = false)
	static class LedgerOnly {

		@Bean
		@IdempotencyDataSource
		DataSource ledgerDataSource() {
			return DataSourceBuilder.create().url("jdbc:h2:mem:ledger-only;DB_CLOSE_DELAY=-1").build();
		}

	}

	/** As docs/getting-started.md shows it. */
	@Configuration(proxyBeanMethods = false)
	static class LedgerBesideTheApplications {

		@Bean
		@IdempotencyDataSource
		DataSource ledgerDataSource() {
			return DataSourceBuilder.create().url("jdbc:h2:mem:ledger;DB_CLOSE_DELAY=-1").build();
		}

		@Bean
		@Primary
		DataSource dataSource(DataSourceProperties properties) {
			return properties.initializeDataSourceBuilder().build();
		}

	}

	@BeforeEach
	void listen() {
		this.logged.start();
		this.logger.addAppender(this.logged);
	}

	@AfterEach
	void stopListening() {
		this.logger.detachAppender(this.logged);
	}

	@Test
	void theMarkedDataSourceAloneWhileSpringDatasourceIsSetIsWarnedOf() {
		this.runner.withUserConfiguration(LedgerOnly.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(JdbcLedger.class);
			assertThat(warnings()).singleElement()
				.asString()
				.contains("spring.datasource.url is set, but the only DataSource is the one marked @IdempotencyDataSource");
		});
	}

	@Test
	void theApplicationsOwnDataSourceBesideItKeepsTheApplicationOnItsDatabase() {
		this.runner.withUserConfiguration(LedgerBesideTheApplications.class).run((context) -> {
			assertThat(context).hasNotFailed();
			JdbcLedger ledger = context.getBean(JdbcLedger.class);
			DataSource application = context.getBean(DataSource.class);

			assertThat(url(ledger.dataSource())).isEqualTo("jdbc:h2:mem:ledger");
			assertThat(url(application)).isEqualTo("jdbc:h2:mem:application");
			assertThat(warnings()).isEmpty();
		});
	}

	private List<String> warnings() {
		return this.logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
	}

	private static String url(DataSource dataSource) {
		return new JdbcTemplate(dataSource).execute(
				(java.sql.Connection connection) -> connection.getMetaData().getURL().replaceAll(";.*", ""));
	}

}
