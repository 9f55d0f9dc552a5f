package io.idempotency.autoconfigure;

import javax.sql.DataSource;

import io.idempotency.IdempotencyConflictException;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A service that uses JPA (Hibernate, Boot's JpaTransactionManager) on MariaDB, whose default isolation is
 * REPEATABLE READ: a transactional tool joins a caller's transaction only at READ COMMITTED, and the level
 * is read from the connection the JPA transaction holds.
 */
class JpaTransactionalToolTest {

	static final String TABLE = "tool_audit_jpa_test";

	private static DataSource mariadb() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, JacksonAutoConfiguration.class,
				HibernateJpaAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
				IdempotentToolsAutoConfiguration.class, IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class))
		.withBean(DataSource.class, () -> new DelegatingDataSource(mariadb()))
		.withUserConfiguration(Tools.class)
		.withPropertyValues("idempotency.jdbc.table-name=" + TABLE, "idempotency.jdbc.initialize-schema=always",
				"idempotency.reconciler.enabled=false", "spring.jpa.hibernate.ddl-auto=none");

	@BeforeEach
	void cleanTables() {
		LedgerSchema.drop(mariadb(), TABLE);
		JdbcTemplate jdbc = new JdbcTemplate(mariadb());
		jdbc.execute("DROP TABLE IF EXISTS notes_jpa_test");
		jdbc.execute("CREATE TABLE notes_jpa_test (id BIGINT AUTO_INCREMENT PRIMARY KEY, text VARCHAR(100))");
	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class Tools {

		@org.springframework.context.annotation.Bean
		NoteTool noteTool(DataSource dataSource) {
			return new NoteTool(new JdbcTemplate(dataSource), "notes_jpa_test");
		}

	}


	@Test
	void aCallInsideAJpaTransactionAtTheDatabasesRepeatableReadIsRefusedBeforeItRuns() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
			assertThat(transactions).isInstanceOf(JpaTransactionManager.class);
			NoteTool tool = context.getBean(NoteTool.class);

			assertThatIllegalStateException()
				.isThrownBy(() -> new TransactionTemplate(transactions)
					.execute((status) -> RunContext.supply(new Run("r1", "rep-1"), () -> tool.recordNote("pump 3", false))))
				.withMessageContaining("Tool 'record_note' is transactional and was called inside a transaction at"
						+ " REPEATABLE READ")
				.withMessageContaining("Nothing was executed");
			assertThat(tool.attempts()).isZero();
			assertThat(tool.notes()).isZero();
		});
	}

	@Test
	void aCallInsideAJpaTransactionAtReadCommittedJoinsItAndOneOutsideRunsInItsOwn() {
		this.runner.run((context) -> {
			PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
			NoteTool tool = context.getBean(NoteTool.class);
			TransactionTemplate readCommitted = new TransactionTemplate(transactions);
			readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);

			String first = readCommitted
				.execute((status) -> RunContext.supply(new Run("r1", "rep-1"), () -> tool.recordNote("pump 3", false)));
			String again = RunContext.supply(new Run("r1", "rep-1"), () -> tool.recordNote("pump 3", false));
			String other = RunContext.supply(new Run("r2", "rep-1"), () -> tool.recordNote("pump 3", false));

			assertThat(first).isEqualTo("noted pump 3");
			assertThat(again).isEqualTo(first);
			assertThat(other).isEqualTo(first);
			assertThat(tool.attempts()).isEqualTo(2);
			assertThat(tool.notes()).isEqualTo(2);
		});
	}

	@Test
	void aRepeatRefusedInsideAJpaTransactionLeavesThatTransactionToCommitWithTheCallersOwnWrite() {
		this.runner.run((context) -> {
			PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
			NoteTool tool = context.getBean(NoteTool.class);
			JdbcTemplate callers = new JdbcTemplate(context.getBean(DataSource.class));
			TransactionTemplate readCommitted = new TransactionTemplate(transactions);
			readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
			RunContext.supply(new Run("r1", "rep-1"), () -> tool.recordNote("pump 3", false));

			Object answer = readCommitted.execute((status) -> {
				callers.update("INSERT INTO notes_jpa_test (text) VALUES ('the caller''s own')");
				try {
					return RunContext.supply(new Run("r1", "rep-2"), () -> tool.recordNote("pump 3", false));
				}
				catch (IdempotencyConflictException refused) {
					return refused;
				}
			});

			assertThat(answer).isInstanceOf(IdempotencyConflictException.class);
			assertThat(tool.notes()).as("the tool's note, and the caller's own row committed").isEqualTo(2);
			assertThat(tool.attempts()).isEqualTo(1);
		});
	}

}
