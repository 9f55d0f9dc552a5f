package io.idempotency.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.reconcile.Approvals;
import io.idempotency.testsupport.FreshSchema;
import io.idempotency.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter checks of approvals at start-up: {@code idempotency.approval.expire-after}, and a ledger
 * table made before the columns of approvals where a tool needs approval; and the application's own
 * {@link Approvals}, which the starter's backs off for.
 */
class ApprovalStartTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
				IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class));

	/** A payment that a person approves before it is made. */
	public static class Payments {

		@IdempotentTool(name = "pay_invoice", reconcile = "find", requiresApproval = true)
		public String payInvoice(String invoice) {
			return "paid " + invoice;
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WithPayments {

		@Bean
		Payments payments() {
			return new Payments();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnApprovals {

		@Bean
		Approvals ownApprovals(io.idempotency.ledger.JdbcLedger ledger) {
			return new Approvals(ledger.approvals(), Duration.ofMinutes(5), (event) -> {
			});
		}

	}

	@Test
	void aTableMadeBeforeTheApprovalColumnsFailsTheStartWhereAToolNeedsApprovalNamingWhatToRun() {
		try (FreshSchema schema = FreshSchema.on(TestDatabase.H2)) {
			tableBeforeApprovals(schema.dataSource());
			this.runner.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
				.withUserConfiguration(WithPayments.class)
				.withPropertyValues("idempotency.jdbc.initialize-schema=never")
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.hasMessageContaining("[pay_invoice]")
					.hasMessageContaining("[approval_reason, decided_by, decided_at, decision_reason]")
					.hasMessageContaining("migration/h2/V1_0_0_0_4__idempotency_ledger_approvals.sql"));
		}
	}

	@Test
	void aTableMadeBeforeTheApprovalColumnsStartsWhereNoToolNeedsApproval() {
		try (FreshSchema schema = FreshSchema.on(TestDatabase.H2)) {
			tableBeforeApprovals(schema.dataSource());
			this.runner.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
				.withPropertyValues("idempotency.jdbc.initialize-schema=never")
				.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(Approvals.class));
		}
	}

	@Test
	void aTableOfThisVersionStartsWithAToolThatNeedsApproval() {
		try (FreshSchema schema = FreshSchema.on(TestDatabase.H2)) {
			this.runner.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
				.withUserConfiguration(WithPayments.class)
				.withPropertyValues("idempotency.jdbc.initialize-schema=always")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(Approvals.class).expireAfter()).isEqualTo(Duration.ofHours(24));
				});
		}
	}

	@Test
	void anExpireAfterOfZeroOrLessFailsTheStartNamingTheProperty() {
		try (FreshSchema schema = FreshSchema.on(TestDatabase.H2)) {
			for (String value : new String[] { "0s", "-1m" }) {
				this.runner.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
					.withPropertyValues("idempotency.approval.expire-after=" + value)
					.run((context) -> assertThat(context).getFailure()
						.rootCause()
						.hasMessageContaining("idempotency.approval.expire-after must be more than zero"));
			}
			this.runner.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
				.withPropertyValues("idempotency.approval.expire-after=2h")
				.run((context) -> assertThat(context.getBean(Approvals.class).expireAfter())
					.isEqualTo(Duration.ofHours(2)));
		}
	}

	@Test
	void theStarterBacksOffForTheApplicationsOwnApprovals() {
		try (FreshSchema schema = FreshSchema.on(TestDatabase.H2)) {
			this.runner.withBean(DataSource.class, () -> new DelegatingDataSource(schema.dataSource()))
				.withUserConfiguration(OwnApprovals.class)
				.run((context) -> assertThat(context).hasSingleBean(Approvals.class)
					.hasBean("ownApprovals"));
		}
	}

	/** The ledger's migrations before the approvals: 1.0.0.0.1 to 1.0.0.0.3. */
	private static void tableBeforeApprovals(DataSource dataSource) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		for (String migration : new String[] { "V1_0_0_0_1__idempotency_ledger.sql",
				"V1_0_0_0_2__idempotency_ledger_settlements.sql", "V1_0_0_0_3__idempotency_ledger_status_check.sql" }) {
			for (String statement : statements("io/idempotency/ledger/migration/h2/" + migration).split(";")) {
				if (!statement.isBlank()) {
					jdbc.execute(statement);
				}
			}
		}
	}

	private static String statements(String location) {
		try {
			return new ClassPathResource(location).getContentAsString(StandardCharsets.UTF_8)
				.lines()
				.filter((line) -> !line.startsWith("--"))
				.collect(Collectors.joining("\n"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
