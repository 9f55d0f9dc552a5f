package io.idempotency.autoconfigure;

import javax.sql.DataSource;

import io.idempotency.Reconciler;
import io.idempotency.ledger.JdbcLedger;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.ResourceLoader;

/** The JDBC ledger on the application's {@link DataSource}, its table, and its background work. */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
		"org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration" })
@ConditionalOnClass(JdbcLedger.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public class IdempotencyLedgerAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	JdbcLedger idempotencyLedger(DataSource dataSource, IdempotencyProperties properties) {
		return new JdbcLedger(dataSource, properties.getJdbc().getTableName(), IdempotencyProperties.redactionOf(properties));
	}

	@Bean
	@ConditionalOnMissingBean
	LedgerSchemaInitializer ledgerSchemaInitializer(DataSource dataSource, IdempotencyProperties properties,
			ResourceLoader resourceLoader) {
		return new LedgerSchemaInitializer(dataSource, properties.getJdbc(), resourceLoader);
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyMaintenance idempotencyMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			IdempotencyProperties properties) {
		return new IdempotencyMaintenance(ledger, reconciler, properties);
	}

}
