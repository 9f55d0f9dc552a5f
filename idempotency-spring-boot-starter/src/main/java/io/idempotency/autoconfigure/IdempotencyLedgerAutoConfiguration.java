package io.idempotency.autoconfigure;

import javax.sql.DataSource;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * The JDBC ledger, its table, and its background work, on the application's {@link DataSource}: the one
 * marked {@link IdempotencyDataSource}, else the only one or the {@code @Primary} one. Backs off where the
 * application declares a ledger of its own (a {@link CallLedger} bean).
 */
@AutoConfiguration(afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration",
		"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
		"org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration" })
@ConditionalOnClass(JdbcLedger.class)
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotencyProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public class IdempotencyLedgerAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(IdempotencyLedgerAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean(CallLedger.class)
	@DependsOnDatabaseInitialization
	JdbcLedger idempotencyLedger(ObjectProvider<DataSource> dataSources,
			@IdempotencyDataSource ObjectProvider<DataSource> idempotencyDataSource, IdempotencyProperties properties,
			Environment environment) {
		warnIfTheMarkedDataSourceIsTheApplicationsOnly(dataSources, idempotencyDataSource, environment);
		return new JdbcLedger(ledgerDataSource(dataSources, idempotencyDataSource), properties.getJdbc().getTableName(),
				IdempotencyProperties.redactionOf(properties), IdempotencyProperties.replayCacheOf(properties),
				IdempotencyProperties.outcomeWriteBehindOf(properties));
	}

	@Bean
	@ConditionalOnBean(JdbcLedger.class)
	@ConditionalOnMissingBean
	LedgerSchemaInitializer ledgerSchemaInitializer(ObjectProvider<DataSource> dataSources,
			@IdempotencyDataSource ObjectProvider<DataSource> idempotencyDataSource, IdempotencyProperties properties,
			ResourceLoader resourceLoader) {
		return new LedgerSchemaInitializer(ledgerDataSource(dataSources, idempotencyDataSource), properties.getJdbc(), resourceLoader);
	}

	/** A start that fails where a tool needs approval and the table lacks the columns of approvals. */
	@Bean
	@ConditionalOnBean(JdbcLedger.class)
	LedgerApprovalColumns idempotencyLedgerApprovalColumns(ObjectProvider<IdempotentToolRegistry> tools,
			ObjectProvider<LedgerSchemaInitializer> ledgerSchemaInitializer) {
		return new LedgerApprovalColumns(tools, ledgerSchemaInitializer);
	}

	@Bean
	@ConditionalOnBean(JdbcLedger.class)
	@ConditionalOnMissingBean
	IdempotencyMaintenance idempotencyMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			ObjectProvider<Approvals> approvals, IdempotencyProperties properties,
			ObjectProvider<ThreadPoolTaskSchedulerBuilder> schedulers) {
		// The heartbeat it schedules keeps one connection of the ledger's pool for itself.
		LedgerPoolSize.check(ledger.dataSource());
		return new IdempotencyMaintenance(ledger, reconciler, approvals, properties,
				schedulers.getIfAvailable(ThreadPoolTaskSchedulerBuilder::new));
	}

	/**
	 * Spring Boot's own {@code DataSource} backs off once the application declares one: where
	 * {@code spring.datasource.url} is set and the only {@code DataSource} is the ledger's, the application's
	 * repositories now use the ledger's database, which is rarely what was meant.
	 */
	private static void warnIfTheMarkedDataSourceIsTheApplicationsOnly(ObjectProvider<DataSource> dataSources,
			ObjectProvider<DataSource> idempotencyDataSource, Environment environment) {
		DataSource marked = idempotencyDataSource.getIfUnique();
		if (marked == null || !environment.containsProperty("spring.datasource.url")) {
			return;
		}
		if (dataSources.stream().allMatch((dataSource) -> dataSource == marked)) {
			logger.warn("spring.datasource.url is set, but the only DataSource is the one marked"
					+ " @IdempotencyDataSource: Spring Boot's own DataSource backs off when the application declares"
					+ " one, so the application's repositories and JdbcTemplates use the ledger's database, not"
					+ " spring.datasource.url. Declare the application's DataSource as a @Primary bean beside it (from"
					+ " DataSourceProperties), or drop @IdempotencyDataSource to keep the ledger in the application's"
					+ " database");
		}
	}

	/** The ledger's DataSource, or a start-up failure that says how to choose it. */
	static DataSource ledgerDataSource(ObjectProvider<DataSource> dataSources,
			ObjectProvider<DataSource> idempotencyDataSource) {
		DataSource marked = idempotencyDataSource.getIfUnique();
		if (marked != null) {
			return marked;
		}
		DataSource only = dataSources.getIfUnique();
		if (only != null) {
			return only;
		}
		throw new IllegalStateException("The idempotency ledger cannot choose among the application's "
				+ dataSources.stream().count() + " DataSources, none of which is @Primary: mark the ledger's with"
				+ " @IdempotencyDataSource (or one with @Primary), or set idempotency.enabled=false to run idempotent"
				+ " tools without deduplication");
	}

	/**
	 * With {@code idempotency.jdbc.flyway}, the application's Flyway leaves the ledger's migrations to the ledger's
	 * own history: rows of them in its history table, from an application that ran them there, are moved out
	 * before it validates ({@link LedgerFlywayHistory}).
	 */
	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { "org.flywaydb.core.Flyway",
			"org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer" })
	@ConditionalOnBooleanProperty("idempotency.jdbc.flyway")
	static class LedgerFlywayHistoryConfiguration {

		@Bean
		org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer idempotencyLedgerFlywayHistory() {
			return (configuration) -> {
				for (org.flywaydb.core.api.Location location : configuration.getLocations()) {
					if (location.getDescriptor().contains("io/idempotency/ledger/migration")) {
						throw new IllegalStateException("idempotency.jdbc.flyway=true runs the ledger's migrations"
								+ " with a history of their own, and the application's Flyway is also given them ("
								+ location.getDescriptor() + " in spring.flyway.locations): remove that location"
								+ " (and spring.flyway.out-of-order, if it was set for them) from spring.flyway.*, or"
								+ " set idempotency.jdbc.flyway=false to keep them in the application's history");
					}
				}
				org.flywaydb.core.api.callback.Callback[] callbacks = configuration.getCallbacks();
				org.flywaydb.core.api.callback.Callback[] withLedger = java.util.Arrays.copyOf(callbacks, callbacks.length + 1);
				withLedger[callbacks.length] = new LedgerFlywayHistory();
				configuration.callbacks(withLedger);
			};
		}

	}

}
