package io.idempotency.autoconfigure;

import java.time.Duration;
import javax.sql.DataSource;

import io.idempotency.autoconfigure.observability.IdempotencyEndpoint;
import io.idempotency.autoconfigure.observability.IdempotencyHealthAutoConfiguration;
import io.idempotency.autoconfigure.observability.IdempotencyHealthIndicator;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A transactional tool runs only in a transaction of the ledger's own DataSource: the claim and the effect
 * commit together or not at all. An application whose transaction manager belongs to another DataSource
 * does not start; a claim committed without its transaction anyway surfaces in health and the endpoint.
 */
class LedgerTransactionManagerTest {

	static final String TABLE = "tool_audit_tm_test";

	private static DataSource ledgerDatabase() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
				IdempotentToolsAutoConfiguration.class, IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class,
				IdempotencyHealthAutoConfiguration.class))
		.withUserConfiguration(PrimaryAndLedgerDataSources.class)
		.withPropertyValues("idempotency.jdbc.table-name=" + TABLE, "idempotency.jdbc.initialize-schema=always",
				"idempotency.reconciler.enabled=false", "management.endpoints.web.exposure.include=idempotency");

	@BeforeEach
	void cleanTables() {
		DataSource ledger = ledgerDatabase();
		LedgerSchema.drop(ledger, TABLE);
		new JdbcTemplate(ledger).execute("DROP TABLE IF EXISTS notes_tm_test");
		new JdbcTemplate(ledger).execute("CREATE TABLE notes_tm_test (id SERIAL PRIMARY KEY, text VARCHAR(100))");
	}

	/** The application's own DataSource, primary, and the ledger's on another database. */
	@Configuration(proxyBeanMethods = false)
	static class PrimaryAndLedgerDataSources {

		@Bean
		@Primary
		DataSource application() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		@IdempotencyDataSource
		DataSource ledger() {
			return new DelegatingDataSource(ledgerDatabase());
		}

		@Bean
		NoteTool noteTool(@IdempotencyDataSource DataSource ledger) {
			return new NoteTool(new JdbcTemplate(ledger), "notes_tm_test");
		}

	}


	/** A transaction manager of the ledger's DataSource, beside the primary one of the application's. */
	@Configuration(proxyBeanMethods = false)
	static class TwoTransactionManagers {

		@Bean
		@Primary
		PlatformTransactionManager transactionManager(DataSource application) {
			return new JdbcTransactionManager(application);
		}

		@Bean
		PlatformTransactionManager ledgerTransactionManager(@IdempotencyDataSource DataSource ledger) {
			return new JdbcTransactionManager(ledger);
		}

	}

	@Test
	void aTransactionalToolWhoseOnlyTransactionManagerBelongsToAnotherDataSourceStopsTheStart() {
		this.runner.run((context) -> assertThat(context).hasFailed()
			.getFailure()
			.hasStackTraceContaining("Tool 'record_note'")
			.hasStackTraceContaining("is transactional, but its transaction manager (JdbcTransactionManager) does not hold"
					+ " connections of the ledger's DataSource")
			.hasStackTraceContaining("idempotency.transaction-manager"));
	}

	@Test
	void theTransactionManagerOfTheLedgersDataSourceIsChosenBesideThePrimaryOne() {
		this.runner.withUserConfiguration(TwoTransactionManagers.class).run((context) -> {
			assertThat(context).hasNotFailed();
			NoteTool tool = context.getBean(NoteTool.class);

			assertThat(note(tool, "r1", "pump 3", false)).isEqualTo("noted pump 3");
			assertThat(note(tool, "r1", "pump 3", false)).isEqualTo("noted pump 3");
			assertThatIllegalStateException().isThrownBy(() -> note(tool, "r1", "valve", true));

			assertThat(tool.notes()).as("one effect, and none of the call that threw").isEqualTo(1);
			assertThat(new JdbcTemplate(ledgerDatabase()).queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class))
				.as("the failed call's claim rolled back with its effect").isEqualTo(1);
		});
	}

	@Test
	void aNamedTransactionManagerIsUsedAndOneOfAnotherDataSourceIsRefused() {
		this.runner.withUserConfiguration(TwoTransactionManagers.class)
			.withPropertyValues("idempotency.transaction-manager=ledgerTransactionManager")
			.run((context) -> assertThat(context).hasNotFailed());
		this.runner.withUserConfiguration(TwoTransactionManagers.class)
			.withPropertyValues("idempotency.transaction-manager=transactionManager")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("does not hold connections of the ledger's DataSource"));
		this.runner.withUserConfiguration(TwoTransactionManagers.class)
			.withPropertyValues("idempotency.transaction-manager=nowhere")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("idempotency.transaction-manager names 'nowhere'"));
	}

	@Test
	void aTransactionalCallLeftUnsettledSurfacesInHealthAndTheEndpoint() {
		this.runner.withUserConfiguration(TwoTransactionManagers.class)
			.withPropertyValues("idempotency.reconciler.stale-after=10ms", "idempotency.health.cache-for=0s")
			.run((context) -> {
				IdempotencyHealthIndicator health = context.getBean(IdempotencyHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				// A claim committed without its transaction, as a transaction manager of another DataSource made.
				String arguments = "{\"fail\":false,\"text\":\"orphan\"}";
				context.getBean(JdbcLedger.class)
					.claim(new ClaimRequest(IdempotencyKeys.derive("record_note", arguments, "r9"), "r9", "rep-1",
							"record_note", arguments));

				await().atMost(Duration.ofSeconds(30))
					.until(() -> health.health().getDetails().get("warning"), Boolean.TRUE::equals);
				assertThat(health.health().getStatus()).as("the instance can still serve").isEqualTo(Status.UP);
				assertThat(health.health().getDetails()).containsEntry("unsettledTransactional", 1L);
				assertThat(String.valueOf(health.health().getDetails().get("problems"))).contains("[record_note]")
					.contains("Settle them by hand");
				assertThat(context.getBean(IdempotencyEndpoint.class).report().unsettledTransactional()).isEqualTo(1);
			});
	}

	private static String note(NoteTool tool, String runId, String text, boolean fail) {
		return RunContext.supply(new Run(runId, "rep-1"), () -> tool.recordNote(text, fail));
	}

}
