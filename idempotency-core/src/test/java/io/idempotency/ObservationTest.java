package io.idempotency;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import io.idempotency.advice.IdempotentToolAdvisor;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.observation.DefaultIdempotentCallObservationConvention;
import io.idempotency.observation.IdempotentCallObservationContext;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.support.JdbcTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Each call is observed, named and tagged by its convention (the default one, or the application's), every
 * listener hears of it, and Micrometer's meter handler makes of it one timer tagged with the tool and the
 * answer's kind: the words the model reads.
 */
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

	/** An application's convention: other key names, and the name a framework exposes the tool under. */
	static class TeamConvention extends DefaultIdempotentCallObservationConvention {

		@Override
		public KeyValues getLowCardinalityKeyValues(IdempotentCallObservationContext context) {
			return KeyValues.of("tool.name", context.getToolName(), "tool.call", context.getToolCallName(), "answer",
					(context.getAnswer() != null) ? context.getAnswer().kind() : "none");
		}

	}

	static final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	static final List<IdempotentCall> heard = new CopyOnWriteArrayList<>();

	static final MeterRegistry meters = new SimpleMeterRegistry();

	static ObservationRegistry observationRegistry() {
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

		}).observationHandler(new DefaultMeterObservationHandler(meters));
		return registry;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Config {

		@Bean
		JdbcLedger ledger() {
			return new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		}

		@Bean
		ObservationRegistry observationRegistry() {
			return ObservationTest.observationRegistry();
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
		JdbcTransactionManager transactionManager() {
			return new JdbcTransactionManager(dataSource);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class WithTeamConvention {

		@Bean
		IdempotentCallObservationConvention teamConvention() {
			return new TeamConvention();
		}

	}

	@BeforeEach
	void clear() {
		stopped.clear();
		heard.clear();
		meters.clear();
	}

	private static String value(Observation.Context observed, String key) {
		return Optional.ofNullable(observed.getLowCardinalityKeyValue(key)).map(KeyValue::getValue).orElse("(none)");
	}

	@Test
	void eachCallIsObservedWithItsToolAndOutcome() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			Tickets tickets = context.getBean(Tickets.class);
			RunContext.run(new Run("observed-run", "rep-1"), () -> {
				tickets.openTicket("seal failure");
				tickets.openTicket("seal failure");
			});

			assertThat(stopped).hasSize(2).allSatisfy((observed) -> {
				assertThat(observed).isInstanceOf(IdempotentCallObservationContext.class);
				assertThat(observed.getName()).isEqualTo("idempotency.tool.call");
				assertThat(observed.getContextualName()).isEqualTo("idempotent open_ticket");
				assertThat(observed.getLowCardinalityKeyValue("idempotency.tool"))
					.isEqualTo(KeyValue.of("idempotency.tool", "open_ticket"));
				assertThat(observed.getHighCardinalityKeyValue("idempotency.key").getValue()).hasSize(64);
			});
			assertThat(stopped).extracting((observed) -> value(observed, "idempotency.outcome"))
				.containsExactly("executed", "replayed");
			assertThat(heard).extracting(IdempotentCall::answer).containsExactly(Answer.EXECUTED, Answer.REPLAYED);
			assertThat(heard).allSatisfy((call) -> assertThat(call.toolCallName()).isEqualTo("openTicket"));
		}
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
				assertThat(value(observed, "idempotency.tool")).isEqualTo("send_invoice");
				assertThat(value(observed, "idempotency.outcome")).isEqualTo("executed");
			});
			assertThat(meters.get("idempotency.tool.call")
				.tags("idempotency.tool", "send_invoice", "idempotency.outcome", "executed")
				.timer()
				.count()).isEqualTo(1);
			assertThat(heard).extracting(IdempotentCall::answer).containsExactly(Answer.EXECUTED);
		}
	}

	@Test
	void aCallNestedInATransactionalToolIsObservedWithItsOutcome() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			Escalations escalations = context.getBean(Escalations.class);
			RunContext.run(new Run("nested-observed-run", "rep-1"), () -> {
				escalations.escalate("pump failure");
				escalations.escalate("pump failure");
			});

			assertThat(stopped)
				.extracting((observed) -> value(observed, "idempotency.tool") + " "
						+ value(observed, "idempotency.outcome"))
				.containsExactly("open_ticket executed", "escalate executed", "escalate replayed");
			assertThat(heard).extracting(IdempotentCall::tool, IdempotentCall::answer)
				.containsExactly(tuple("open_ticket", Answer.EXECUTED), tuple("escalate", Answer.EXECUTED),
						tuple("escalate", Answer.REPLAYED));
			assertThat(meters.get("idempotency.tool.call")
				.tags("idempotency.tool", "open_ticket", "idempotency.outcome", "executed")
				.timer()
				.count()).isEqualTo(1);
		}
	}

	@Test
	void theTimerOfEachCallIsTaggedWithItsToolAndTheKindTheModelReads() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			Tickets tickets = context.getBean(Tickets.class);
			RunContext.run(new Run("timed-run", "rep-1"), () -> {
				tickets.openTicket("seal failure");
				tickets.openTicket("seal failure");
			});
			assertThatExceptionOfType(IdempotencyConflictException.class)
				.isThrownBy(() -> RunContext.run(new Run("timed-run", "intruder"), () -> tickets.openTicket("seal failure")));
			assertThatExceptionOfType(MissingRunException.class).isThrownBy(() -> tickets.openTicket("seal failure"));

			assertThat(meters.get("idempotency.tool.call").timers())
				.extracting((timer) -> timer.getId().getTag("idempotency.tool"),
						(timer) -> timer.getId().getTag("idempotency.outcome"), (timer) -> timer.getId().getTag("error"),
						Timer::count)
				.containsExactlyInAnyOrder(tuple("open_ticket", "executed", "none", 1L),
						tuple("open_ticket", "replayed", "none", 1L),
						tuple("open_ticket", "refused_conflict", "IdempotencyConflictException", 1L),
						tuple("open_ticket", "refused_without_run", "MissingRunException", 1L));
			assertThat(heard).extracting((call) -> call.answer().kind())
				.containsExactly("executed", "replayed", "refused_conflict", "refused_without_run");
			// One timer per call, and the long task timer of the calls running: no other meter counts the calls.
			assertThat(meters.getMeters()).extracting((meter) -> meter.getId().getName())
				.containsOnly("idempotency.tool.call", "idempotency.tool.call.active");
			assertThat(meters.getMeters()).filteredOn((meter) -> meter.getId().getType() == Meter.Type.TIMER)
				.allSatisfy((timer) -> assertThat(timer.getId().getTags()).extracting(io.micrometer.core.instrument.Tag::getKey)
					.containsExactlyInAnyOrder("idempotency.tool", "idempotency.outcome", "error"));
		}
	}

	@Test
	void aFunctionCalledThroughIdempotentCallsIsTimedAsAnAnnotatedToolIs() {
		IdempotentFunction<String> openTicket = IdempotentFunction.builder("open_ticket_function", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class)) {
			IdempotentCalls calls = context.getBean(IdempotentCalls.class);
			calls.register(openTicket);
			RunContext.run(new Run("function-run", "rep-1"), () -> {
				calls.call(openTicket, "{\"issue\":\"seal failure\"}", () -> "T-9");
				calls.call(openTicket, "{\"issue\":\"seal failure\"}", () -> "T-10");
			});

			assertThat(meters.get("idempotency.tool.call").timers())
				.extracting((timer) -> timer.getId().getTag("idempotency.tool"),
						(timer) -> timer.getId().getTag("idempotency.outcome"), Timer::count)
				.containsExactlyInAnyOrder(tuple("open_ticket_function", "executed", 1L),
						tuple("open_ticket_function", "replayed", 1L));
		}
	}

	@Test
	void aConventionBeanReplacesTheDefaultOne() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Config.class,
				WithTeamConvention.class)) {
			Tickets tickets = context.getBean(Tickets.class);
			RunContext.run(new Run("convention-run", "rep-1"), () -> {
				tickets.openTicket("seal failure");
				tickets.openTicket("seal failure");
			});

			assertThat(meters.get("idempotency.tool.call").timers())
				.extracting((timer) -> timer.getId().getTag("tool.name"), (timer) -> timer.getId().getTag("tool.call"),
						(timer) -> timer.getId().getTag("answer"), (timer) -> timer.getId().getTag("idempotency.tool"))
				.containsExactlyInAnyOrder(tuple("open_ticket", "openTicket", "executed", null),
						tuple("open_ticket", "openTicket", "replayed", null));
		}
	}

	@Test
	void aConventionSetOnTheAdvisorWithoutASpringContextReplacesTheDefaultOne() {
		JdbcLedger ledger = new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		IdempotentToolAdvisor advisor = new IdempotentToolAdvisor(() -> ledger, JsonMapper::new, List::of, () -> null);
		ObservationRegistry registry = observationRegistry();
		advisor.setObservationRegistry(() -> registry);
		advisor.setObservationConvention(TeamConvention::new);
		ProxyFactory proxies = new ProxyFactory(new Tickets());
		proxies.setProxyTargetClass(true);
		proxies.addAdvisor(advisor);
		Tickets tickets = (Tickets) proxies.getProxy();

		RunContext.run(new Run("advisor-convention-run", "rep-1"), () -> {
			tickets.openTicket("seal failure");
			tickets.openTicket("seal failure");
		});

		assertThat(stopped).extracting((observed) -> value(observed, "tool.name") + " " + value(observed, "answer"))
			.containsExactly("open_ticket executed", "open_ticket replayed");
		assertThat(meters.get("idempotency.tool.call").tag("answer", "replayed").timer().count()).isEqualTo(1);
	}

}
