package io.idempotency.reconcile;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Map;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The reconciler asks the reconcile methods of a package-private tool class, as an application writes one:
 * a package-private method (asked on the bean itself) and a public one (asked through its proxy).
 */
class PackagePrivateToolClassReconcileTest {

	private static final Duration STALE_AFTER = Duration.ofMinutes(2);

	static class Desk {

		@IdempotentTool(reconcile = "findTicket")
		public String openTicket(String account) {
			throw new UncheckedIOException(new SocketTimeoutException("Read timed out"));
		}

		Reconciliation<String> findTicket(IdempotencyKey key, String account) {
			return Reconciliation.found("TCK-" + account);
		}

		@IdempotentTool(reconcile = "findCase")
		public String openCase(String account) {
			throw new UncheckedIOException(new SocketTimeoutException("Read timed out"));
		}

		public Reconciliation<String> findCase(IdempotencyKey key, String account) {
			return Reconciliation.found("CASE-" + account);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools(proxyTargetClass = true)
	static class Tools {

		@Bean
		Desk desk() {
			return new Desk();
		}

	}

	@Test
	void bothReconcileMethodsAreAskedAndTheirAnswersRecorded() {
		InMemoryLedger ledger = new InMemoryLedger();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(InMemoryLedger.class, () -> ledger);
			context.register(Tools.class);
			context.refresh();
			Desk desk = context.getBean(Desk.class);
			Run run = new Run("r1", "rep-1");
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> RunContext.run(run, () -> desk.openTicket("acme")));
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> RunContext.run(run, () -> desk.openCase("acme")));
			ledger.advance(STALE_AFTER.plusSeconds(1));

			Reconciler.Pass pass = new Reconciler(ledger, context.getBean(IdempotentToolRegistry.class),
					new JsonMapper(), new ReconcilerSettings(STALE_AFTER, Map.of(), 100, Duration.ofMinutes(5),
							Duration.ofMinutes(1), Duration.ofMinutes(4), 3))
				.reconcile();

			assertThat(pass.succeeded()).isEqualTo(2);
			assertThat(ledger.entries()).extracting(LedgerEntry::status)
				.containsOnly(LedgerStatus.SUCCEEDED);
			assertThat(ledger.entries()).extracting(LedgerEntry::result)
				.containsExactlyInAnyOrder("\"TCK-acme\"", "\"CASE-acme\"");
		}
	}

}
