package io.idempotency;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Each call is observed, with its tool and outcome, and every listener hears of it. */
class ObservationTest {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	static {
		LedgerSchema.create(dataSource, "tool_audit");
	}

	public static class Tickets {

		@IdempotentTool(name = "open_ticket", reconcile = "find")
		public String openTicket(String issue) {
			return "T-1";
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** A transactional tool that opens a ticket through the idempotent tool above: a nested call. */
	public static class Escalations {

		private final Tickets tickets;

		public Escalations(Tickets tickets) {
			this.tickets = tickets;
		}

		@IdempotentTool(name = "escalate", transactional = true)
		public String escalate(String issue) {
			return "escalated as " + this.tickets.openTicket(issue);
		}

	}

	static final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	static final List<IdempotentCall> heard = new CopyOnWriteArrayList<>();

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Config {

		@Bean
		JdbcLedger ledger() {
			return new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		}

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public void onStop(Observation.Context context) {
					stopped.add(context);
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			});
			return registry;
		}

		@Bean
		IdempotentCallListener listener() {
			return heard::add;
		}

		@Bean
		Tickets tickets() {
			return new Tickets();
		}

		@Bean
		Escalations escalations(Tickets tickets) {
			return new Escalations(tickets);
		}

		@Bean
		org.springframework.jdbc.support.JdbcTransactionManager transactionManager() {
			return new org.springframework.jdbc.support.JdbcTransactionManager(dataSource);
		}

	}

	@BeforeEach
	void forget() {
		stopped.clear();
		heard.clear();
	}

	@Test
	void anAsynchronousCallIsObservedUntilItsOutcomeIsRecorded() {
		IdempotentFunction<String> sendInvoice = IdempotentFunction.builder("send_invoice", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			IdempotentCalls calls = context.getBean(IdempotentCalls.class);
			calls.register(sendInvoice);
			CompletableFuture<String> provider = new CompletableFuture<>();
			CompletionStage<String> sent = RunContext.supply(new Run("observed-async-run", "rep-1"),
					() -> calls.callAsync(sendInvoice, Map.of("invoice", "INV-1"), () -> provider, Runnable::run));

			assertThat(stopped).as("still running").isEmpty();
			provider.complete("sent INV-1");

			assertThat(sent.toCompletableFuture().join()).isEqualTo("sent INV-1");
			assertThat(stopped).singleElement().satisfies((observed) -> {
				assertThat(observed.getLowCardinalityKeyValue("tool")).isEqualTo(KeyValue.of("tool", "send_invoice"));
				assertThat(observed.getLowCardinalityKeyValue("outcome")).isEqualTo(KeyValue.of("outcome", "executed"));
			});
			assertThat(heard).extracting(IdempotentCall::answer).containsExactly(io.idempotency.Answer.EXECUTED);
		}
	}

	@Test
	void eachCallIsObservedWithItsToolAndOutcome() {
		stopped.clear();
		heard.clear();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			Tickets tickets = context.getBean(Tickets.class);
			RunContext.run(new Run("observed-run", "rep-1"), () -> {
				tickets.openTicket("seal failure");
				tickets.openTicket("seal failure");
			});

			assertThat(stopped).hasSize(2).allSatisfy((observed) -> {
				assertThat(observed.getName()).isEqualTo("idempotency.tool.call");
				assertThat(observed.getLowCardinalityKeyValue("tool")).isEqualTo(KeyValue.of("tool", "open_ticket"));
			});
			assertThat(stopped).extracting((observed) -> observed.getLowCardinalityKeyValue("outcome").getValue())
				.containsExactly("executed", "replayed");
			assertThat(heard).extracting(IdempotentCall::answer)
				.containsExactly(io.idempotency.Answer.EXECUTED, io.idempotency.Answer.REPLAYED);
			assertThat(heard).allSatisfy((call) -> assertThat(call.toolCallName()).isEqualTo("openTicket"));
		}
	}

	@Test
	void aCallNestedInATransactionalToolIsObservedWithItsOutcome() {
		stopped.clear();
		heard.clear();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			Escalations escalations = context.getBean(Escalations.class);
			RunContext.run(new Run("nested-observed-run", "rep-1"), () -> {
				escalations.escalate("pump failure");
				escalations.escalate("pump failure");
			});

			assertThat(stopped).extracting((observed) -> observed.getLowCardinalityKeyValue("tool").getValue() + " "
					+ java.util.Optional.ofNullable(observed.getLowCardinalityKeyValue("outcome"))
						.map(KeyValue::getValue)
						.orElse("(no outcome)"))
				.containsExactly("open_ticket executed", "escalate executed", "escalate replayed");
			assertThat(heard).extracting(IdempotentCall::tool, IdempotentCall::answer)
				.containsExactly(org.assertj.core.groups.Tuple.tuple("open_ticket", Answer.EXECUTED),
						org.assertj.core.groups.Tuple.tuple("escalate", Answer.EXECUTED),
						org.assertj.core.groups.Tuple.tuple("escalate", Answer.REPLAYED));
		}
	}

}
