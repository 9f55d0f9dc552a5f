package io.idempotency.autoconfigure;

import java.time.LocalDate;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.autoconfigure.QuoteTool.QuoteRequest;
import io.idempotency.autoconfigure.observability.IdempotencyHealthAutoConfiguration;
import io.idempotency.autoconfigure.observability.IdempotencyHealthIndicator;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.test.InMemoryLedgerAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static io.idempotency.test.LedgerAssertions.assertThatLedger;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory ledger of {@code idempotency-test} in an application with the starter, as
 * {@code @AutoConfigureInMemoryLedger} applies it: it takes the JDBC ledger's place, with what depends on it,
 * even where the application has a {@code DataSource}; it redacts what the application's properties name;
 * the reconciler works on it; and with the library switched off nothing is applied.
 */
class InMemoryLedgerStarterTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				InMemoryLedgerAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
				IdempotentToolsAutoConfiguration.class, IdempotencyDisabledAutoConfiguration.class,
				IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencyHealthAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
		.withUserConfiguration(Tools.class);

	@Configuration(proxyBeanMethods = false)
	static class Tools {

		@Bean
		QuoteTool quoteTool(DataSource dataSource) {
			return new QuoteTool(new JdbcTemplate(dataSource));
		}

	}

	private static final QuoteRequest REQUEST = new QuoteRequest("Henderson Industrial", "SKU-4411", 200,
			LocalDate.of(2026, 12, 18), null);

	@Test
	void theInMemoryLedgerTakesTheJdbcLedgersPlaceWithWhatDependsOnIt() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(CallLedger.class)
				.hasSingleBean(InMemoryLedger.class)
				.doesNotHaveBean(JdbcLedger.class)
				.doesNotHaveBean(LedgerSchemaInitializer.class)
				.doesNotHaveBean(IdempotencyMaintenance.class)
				.doesNotHaveBean(IdempotencyHealthIndicator.class)
				.hasSingleBean(Reconciler.class);
			QuoteTool tool = context.getBean(QuoteTool.class);
			InMemoryLedger ledger = context.getBean(InMemoryLedger.class);

			RunContext.supply(new Run("r1", "rep-1"), () -> tool.draftQuote(REQUEST));
			RunContext.supply(new Run("r1", "rep-1"), () -> tool.draftQuote(REQUEST));

			assertThat(tool.quotes()).isEqualTo(1);
			assertThatLedger(ledger).call("draft_quote", "r1").succeeded().wasReplayed(1).wasMadeBy("rep-1");
			Integer tables = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
					"SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE LOWER(TABLE_NAME) = 'tool_audit'", Integer.class);
			assertThat(tables).as("no ledger table is created for a ledger in memory").isZero();
		});
	}

	@Test
	void argumentsAreRedactedAsTheApplicationsPropertiesSay() {
		this.runner.withPropertyValues("idempotency.redaction.names=accountName").run((context) -> {
			QuoteTool tool = context.getBean(QuoteTool.class);

			RunContext.supply(new Run("r1", "rep-1"), () -> tool.draftQuote(REQUEST));

			assertThat(context.getBean(InMemoryLedger.class).entries().get(0).arguments())
				.contains("\"accountName\":\"[REDACTED]\"")
				.contains("SKU-4411");
		});
	}

	@Test
	void anApplicationsOwnLedgerIsKept() {
		InMemoryLedger own = new InMemoryLedger();
		this.runner.withBean("ownLedger", InMemoryLedger.class, () -> own).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(CallLedger.class).doesNotHaveBean(JdbcLedger.class);
			assertThat(context.getBean(CallLedger.class)).isSameAs(own);
		});
	}

	@Test
	void anApplicationWithATransactionalToolDoesNotStartOnIt() {
		this.runner.withBean(NoteTool.class, () -> new NoteTool(null, "notes")).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("Tool 'record_note' (NoteTool.recordNote) is transactional, but the ledger is not"
						+ " on a database, so the claim and the tool's effect cannot commit together");
		});
	}

	@Test
	void withIdempotencySwitchedOffNothingIsApplied() {
		this.runner.withPropertyValues("idempotency.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(CallLedger.class);
			QuoteTool tool = context.getBean(QuoteTool.class);
			tool.draftQuote(REQUEST);
			tool.draftQuote(REQUEST);
			assertThat(tool.quotes()).isEqualTo(2);
		});
	}

}
