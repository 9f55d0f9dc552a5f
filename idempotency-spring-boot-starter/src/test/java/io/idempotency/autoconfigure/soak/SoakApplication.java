package io.idempotency.autoconfigure.soak;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyApprovalsAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** One instance of the soak: the starter and two tools whose effect is a row in {@code soak_effects}. */
@SpringBootConfiguration(proxyBeanMethods = false)
@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
		JdbcTemplateAutoConfiguration.class, AopAutoConfiguration.class, JacksonAutoConfiguration.class,
		IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
		IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class })
class SoakApplication {

	static final String EFFECTS = "soak_effects";

	/** Items named so lose their answer after the effect: the call is recorded unknown and reconciled. */
	static final String LOST_ANSWER = "lost-";

	@Bean
	SoakTools soakTools(JdbcTemplate jdbc, PlatformTransactionManager transactions) {
		return new SoakTools(jdbc, new TransactionTemplate(transactions));
	}

	public static class SoakTools {

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		SoakTools(JdbcTemplate jdbc, TransactionTemplate transactions) {
			this.jdbc = jdbc;
			this.transactions = transactions;
		}

		@IdempotentTool(name = "reserve", reconcile = "findReservation")
		public ToolResult<String> reserve(String item) {
			String reference = IdempotentInvocation.current().key().externalReference("v");
			this.transactions.executeWithoutResult((status) -> effect(reference));
			if (item.startsWith(LOST_ANSWER)) {
				throw new UncheckedIOException(new SocketTimeoutException("Read timed out (the answer was lost)"));
			}
			return ToolResult.of(reference);
		}

		Reconciliation<String> findReservation(IdempotencyKey key) {
			String reference = key.externalReference("v");
			return (effects(reference) > 0) ? Reconciliation.found(reference) : Reconciliation.notFound();
		}

		@IdempotentTool(name = "reserve_in_transaction", transactional = true)
		public ToolResult<String> reserveInTransaction(String item) {
			String reference = IdempotentInvocation.current().key().externalReference("v");
			effect(reference);
			return ToolResult.of(reference);
		}

		private void effect(String reference) {
			this.jdbc.update("INSERT INTO " + EFFECTS + " (reference) VALUES (?)", reference);
		}

		int effects(String reference) {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + EFFECTS + " WHERE reference = ?", Integer.class,
					reference);
		}

	}

}
