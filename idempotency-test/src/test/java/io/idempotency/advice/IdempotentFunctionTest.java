package io.idempotency.advice;

import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.Answer;
import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallListener;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.MissingRunException;
import io.idempotency.OrderTools;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.Reconciliation;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.Redaction;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Idempotent functions, tools that are not annotated methods, through the real advice on the
 * {@link InMemoryLedger}: the same answers as annotated tools, registration, and the reconciler.
 */
class IdempotentFunctionTest {

	public record Ticket(String number, String account, BigDecimal amount) {
	}

	private final InMemoryLedger ledger = new InMemoryLedger();

	private final List<IdempotentCall> told = new CopyOnWriteArrayList<>();

	private final AtomicInteger opened = new AtomicInteger();

	private final List<Map<String, Object>> reconciled = new CopyOnWriteArrayList<>();

	private final IdempotentFunction<Ticket> openTicket = IdempotentFunction.builder("open_ticket", Ticket.class)
		.reconcile((key, arguments) -> {
			this.reconciled.add(arguments);
			return Reconciliation.found(new Ticket("T-found", (String) arguments.get("account"),
					(BigDecimal) arguments.get("amount")));
		})
		.build();

	private AnnotationConfigApplicationContext context;

	private IdempotentCalls calls;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.registerBean(IdempotentCallListener.class, () -> this.told::add);
		this.context.registerBean("openTicket", IdempotentFunction.class, () -> this.openTicket);
		this.context.register(OrderTools.Enabled.class);
		this.context.refresh();
		this.calls = this.context.getBean(IdempotentCalls.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	private Ticket open(String argumentsJson) {
		return this.calls.call(this.openTicket, argumentsJson, () -> {
			int number = this.opened.incrementAndGet();
			return new Ticket("T-" + number, "acme", new BigDecimal("12.50"));
		});
	}

	@Test
	void aRepeatWithItsArgumentsReorderedIsAnsweredWithTheStoredResultAndNotRun() throws Exception {
		Ticket first = inRun("r1", () -> open("{\"account\":\"acme\",\"amount\":12.50}"));
		Ticket repeat = inRun("r1", () -> open("{ \"amount\": 12.50, \"account\": \"acme\" }"));
		Ticket nextRun = inRun("r2", () -> open("{\"account\":\"acme\",\"amount\":12.50}"));

		assertThat(repeat).isEqualTo(first).isEqualTo(new Ticket("T-1", "acme", new BigDecimal("12.50")));
		assertThat(nextRun.number()).isEqualTo("T-2");
		assertThat(this.opened).hasValue(2);
		assertThat(this.told).extracting(IdempotentCall::answer)
			.containsExactly(Answer.EXECUTED, Answer.REPLAYED, Answer.EXECUTED);
		assertThat(this.told).extracting(IdempotentCall::toolCallName).containsOnly("open_ticket");
		LedgerEntry row = this.ledger.entries().get(0);
		assertThat(row.key()).as("the key of the specification, over the JSON text")
			.isEqualTo(IdempotencyKeys.derive("open_ticket", "{\"amount\":12.50,\"account\":\"acme\"}", "r1"));
		assertThat(row.arguments()).contains("12.50");
	}

	@Test
	void argumentsGivenAsValuesHaveTheKeyOfTheSameArgumentsAsJson() throws Exception {
		Ticket first = inRun("r1", () -> this.calls.call(this.openTicket,
				Map.of("account", "acme", "amount", new BigDecimal("12.5")), () -> new Ticket("T-map", "acme", null)));
		Ticket repeat = inRun("r1", () -> open("{\"amount\":12.50,\"account\":\"acme\"}"));

		assertThat(repeat).isEqualTo(first);
		assertThat(this.opened).hasValue(0);
		assertThat(this.ledger.entries()).singleElement()
			.extracting(LedgerEntry::key)
			.isEqualTo(IdempotencyKeys.derive("open_ticket", Map.of("account", "acme", "amount", 12.5), "r1"));
	}

	@Test
	void aCallFindsItsRunInTheToolContextGivenAndOutsideAnyRunIsRefusedWithoutRunning() {
		Map<String, Object> toolContext = Map.of("runId", "ctx-run", "userId", "rep-1");
		this.calls.call(this.openTicket, "{\"account\":\"acme\"}", toolContext, () -> new Ticket("T-ctx", "acme", null));
		Ticket repeat = this.calls.call(this.openTicket, "{\"account\":\"acme\"}", toolContext, () -> {
			throw new AssertionError("a repeat must not run");
		});

		assertThat(repeat.number()).isEqualTo("T-ctx");
		assertThat(this.ledger.entries()).singleElement().extracting(LedgerEntry::runId).isEqualTo("ctx-run");
		assertThatExceptionOfType(MissingRunException.class).isThrownBy(() -> open("{\"account\":\"acme\"}"));
		assertThat(this.opened).hasValue(0);
		assertThat(this.told).extracting(IdempotentCall::answer)
			.containsExactly(Answer.EXECUTED, Answer.REPLAYED, Answer.REFUSED_WITHOUT_RUN);
	}

	@Test
	void argumentsThatAreNotAJsonObjectAreRefusedBeforeAnythingIsClaimed() {
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> inRun("r1", () -> open("[1, 2]")))
			.withMessageContaining("open_ticket");
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> inRun("r1", () -> this.calls.call(this.openTicket, (Map<String, ?>) null, () -> null)));

		assertThat(this.ledger.entries()).isEmpty();
		assertThat(this.opened).hasValue(0);
	}

	@Test
	void nullJsonArgumentsAreRefusedAsJsonBeforeAnythingIsClaimed() {
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> inRun("r1", () -> this.calls.call(this.openTicket, (String) null, () -> null)))
			.withMessageContaining("must be a JSON object, but are null");
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> inRun("r1", () -> this.calls.call(this.openTicket, (String) null, Map.of(), () -> null)))
			.withMessageContaining("must be a JSON object, but are null");

		assertThat(this.ledger.entries()).isEmpty();
		assertThat(this.told).extracting(IdempotentCall::answer)
			.containsExactly(Answer.REFUSED_INVALID_ARGUMENTS, Answer.REFUSED_INVALID_ARGUMENTS);
	}

	@Test
	void anAsynchronousRepeatWhoseWaitForTheRunningCallFailsIsToldInProgressOnce() throws Exception {
		IdempotentFunction<String> sendInvoice = IdempotentFunction.builder("send_invoice", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.waitForRunning(Duration.ofSeconds(5))
			.build();
		AtomicInteger reads = new AtomicInteger();
		CallLedger failingReads = new CallLedger() {

			@Override
			public Claim claim(ClaimRequest request) {
				return IdempotentFunctionTest.this.ledger.claim(request);
			}

			@Override
			public boolean recordSucceeded(Claim.Won claim, String resultJson) {
				return IdempotentFunctionTest.this.ledger.recordSucceeded(claim, resultJson);
			}

			@Override
			public boolean recordSucceededWithoutResult(Claim.Won claim, String reason) {
				return IdempotentFunctionTest.this.ledger.recordSucceededWithoutResult(claim, reason);
			}

			@Override
			public boolean recordFailed(Claim.Won claim, String error) {
				return IdempotentFunctionTest.this.ledger.recordFailed(claim, error);
			}

			@Override
			public boolean recordUnknown(Claim.Won claim, String error) {
				return IdempotentFunctionTest.this.ledger.recordUnknown(claim, error);
			}

			@Override
			public void recordReplay(IdempotencyKey key) {
				IdempotentFunctionTest.this.ledger.recordReplay(key);
			}

			@Override
			public Optional<LedgerEntry> findLatest(IdempotencyKey key) {
				reads.incrementAndGet();
				throw new AssertionError("the row cannot be read");
			}

			@Override
			public Redaction redaction() {
				return IdempotentFunctionTest.this.ledger.redaction();
			}

		};
		try (AnnotationConfigApplicationContext failing = new AnnotationConfigApplicationContext()) {
			failing.registerBean(CallLedger.class, () -> failingReads);
			failing.registerBean(IdempotentCallListener.class, () -> this.told::add);
			failing.register(OrderTools.Enabled.class);
			failing.refresh();
			IdempotentCalls calls = failing.getBean(IdempotentCalls.class);
			calls.register(sendInvoice);
			CompletableFuture<String> provider = new CompletableFuture<>();
			ExecutorService recording = Executors.newSingleThreadExecutor();
			try {
				Run run = new Run("r-wait", "u1");
				CompletionStage<String> first = RunContext.supply(run,
						() -> calls.callAsync(sendInvoice, Map.of("invoice", "INV-1"), () -> provider, recording));
				CompletionStage<String> repeat = RunContext.supply(run,
						() -> calls.callAsync(sendInvoice, Map.of("invoice", "INV-1"), () -> provider, recording));

				assertThatExceptionOfType(CompletionException.class)
					.isThrownBy(() -> repeat.toCompletableFuture().join())
					.withCauseInstanceOf(ToolCallInProgressException.class);
				assertThat(reads).hasValue(1);
				provider.complete("sent");
				assertThat(first.toCompletableFuture().join()).isEqualTo("sent");
			}
			finally {
				recording.shutdown();
			}
		}
		assertThat(this.told).extracting(IdempotentCall::answer).containsExactly(Answer.IN_PROGRESS, Answer.EXECUTED);
	}

	@Test
	void aFailureIsClassifiedAsForAnAnnotatedToolAndTheReconcilerAsksTheFunction() throws Exception {
		IdempotentFunction<String> refund = IdempotentFunction.builder("refund", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.failedOn(IllegalArgumentException.class)
			.build();
		this.calls.register(refund);
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> inRun("r1",
				() -> this.calls.call(refund, "{\"order\":7}", () -> {
					throw new IllegalArgumentException("order 7 was never paid");
				})));
		assertThatExceptionOfType(PreviousAttemptFailedException.class)
			.isThrownBy(() -> inRun("r1", () -> this.calls.call(refund, "{\"order\":7}", () -> "refunded")))
			.withMessageContaining("never paid");

		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> inRun("r1",
				() -> this.calls.call(this.openTicket, "{\"account\":\"acme\",\"amount\":0.10}", () -> {
					throw new UncheckedIOException(new SocketTimeoutException("read timed out"));
				})));
		assertThatExceptionOfType(ToolCallInProgressException.class)
			.isThrownBy(() -> inRun("r1", () -> open("{\"account\":\"acme\",\"amount\":0.10}")));
		LedgerEntry unknown = this.ledger.entries()
			.stream()
			.filter((row) -> row.tool().equals("open_ticket"))
			.findFirst()
			.orElseThrow();
		assertThat(unknown.status()).isEqualTo(LedgerStatus.UNKNOWN);

		Reconciler reconciler = new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class),
				new JsonMapper(), new ReconcilerSettings(Duration.ofMinutes(2), Map.of(), 100, Duration.ofMinutes(5),
						Duration.ofMinutes(1), Duration.ofMinutes(4), 10));
		this.ledger.advance(Duration.ofMinutes(3));
		assertThat(reconciler.reconcile().succeeded()).isEqualTo(1);

		assertThat(this.reconciled).singleElement()
			.isEqualTo(Map.of("account", "acme", "amount", new BigDecimal("0.10")));
		Ticket replayed = inRun("r1", () -> open("{\"account\":\"acme\",\"amount\":0.10}"));
		assertThat(replayed).isEqualTo(new Ticket("T-found", "acme", new BigDecimal("0.10")));
		assertThat(this.opened).hasValue(0);
	}

	@Test
	void aFunctionIsCalledOnlyOnceRegisteredAndItsNameIsItsOwn() throws Exception {
		IdempotentFunction<String> unregistered = IdempotentFunction.builder("archive", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		assertThatIllegalStateException()
			.isThrownBy(() -> inRun("r1", () -> this.calls.call(unregistered, "{}", () -> "archived")))
			.withMessageContaining("Function 'archive' is not registered");
		assertThat(this.ledger.entries()).isEmpty();

		this.calls.register(unregistered);
		this.calls.register(unregistered);
		assertThat(inRun("r1", () -> this.calls.call(unregistered, "{}", () -> "archived"))).isEqualTo("archived");
		assertThat(this.context.getBean(IdempotentToolRegistry.class).reconcilableToolNames())
			.contains("archive", "open_ticket", "place_order");

		IdempotentFunction<String> twin = IdempotentFunction.builder("archive", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		assertThatIllegalStateException().isThrownBy(() -> this.calls.register(twin))
			.withMessageContaining("Function 'archive' (registered with IdempotentCalls.register) has the name of another tool");
		assertThatIllegalStateException().isThrownBy(() -> inRun("r1", () -> this.calls.call(twin, "{}", () -> "again")))
			.withMessageContaining("not the function registered under that name");
		IdempotentFunction<String> likeAMethod = IdempotentFunction.builder("place_order", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		assertThatIllegalStateException().isThrownBy(() -> this.calls.register(likeAMethod))
			.withMessageContaining("has the name of another tool (method OrderTools.placeOrder)");
	}

	@Test
	void aFunctionWithoutAWayToReconcileOrThatCannotRunAsDefinedIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotentFunction.builder("open_ticket", Ticket.class).build())
			.withMessageContaining("Function 'open_ticket' has no reconcile function");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotentFunction.builder("open_ticket", Ticket.class)
				.transactional()
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.build())
			.withMessageContaining("Choose one");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotentFunction.builder(" ", Ticket.class).transactional().build())
			.withMessageContaining("name must not be blank");

		IdempotentFunction<Ticket> transactional = IdempotentFunction.builder("book", Ticket.class).transactional().build();
		assertThatIllegalStateException().isThrownBy(() -> this.calls.register(transactional))
			.withMessageContaining("Function 'book'")
			.withMessageContaining("is transactional, but");
		IdempotentFunction<Ticket> waitsInATransaction = IdempotentFunction.builder("book_twice", Ticket.class)
			.transactional()
			.waitForRunning(Duration.ofSeconds(2))
			.build();
		assertThatIllegalStateException().isThrownBy(() -> this.calls.register(waitsInATransaction))
			.withMessageContaining("Function 'book_twice' is transactional and has waitForRunning");
		IdempotentFunction<Ticket> waitsForever = IdempotentFunction.builder("wait_forever", Ticket.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.waitForRunning(Duration.ofDays(1))
			.build();
		assertThatIllegalStateException().isThrownBy(() -> this.calls.register(waitsForever))
			.withMessageContaining("longer than a repeat may wait (PT1H)");
		IdempotentFunction<java.util.concurrent.CompletableFuture<String>> later = IdempotentFunction
			.builder("later", new org.springframework.core.ParameterizedTypeReference<java.util.concurrent.CompletableFuture<String>>() {
			})
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		assertThatIllegalStateException().isThrownBy(() -> this.calls.register(later))
			.withMessageContaining("completes later");
	}

	@Test
	void sensitiveMembersAreStoredRedactedTheKeyCoversThemAndAResultQuotingOneIsNotStored() throws Exception {
		List<Map<String, Object>> asked = new CopyOnWriteArrayList<>();
		IdempotentFunction<String> charge = IdempotentFunction.builder("charge", String.class)
			.reconcile((key, arguments) -> {
				asked.add(arguments);
				return Reconciliation.notFound();
			})
			.sensitive("number")
			.build();
		this.calls.register(charge);
		String card4242 = "{\"card\":{\"number\":\"4242424242424242\",\"holder\":\"Ada\"},\"amount\":5}";
		String card1111 = "{\"card\":{\"number\":\"4111111111111111\",\"holder\":\"Ada\"},\"amount\":5}";

		inRun("r1", () -> this.calls.call(charge, card4242, () -> "charged"));
		String otherCard = inRun("r1", () -> this.calls.call(charge, card1111, () -> "charged again"));
		assertThat(otherCard).as("the key covers the redacted member").isEqualTo("charged again");
		assertThat(this.ledger.entries()).extracting(LedgerEntry::arguments)
			.allSatisfy((stored) -> assertThat(stored).contains("[REDACTED]", "Ada").doesNotContain("4242", "4111"));

		assertThatExceptionOfType(io.idempotency.ResultNotStoredException.class).isThrownBy(() -> inRun("r2", () -> {
			this.calls.call(charge, card4242, () -> "charged card 4242424242424242");
			return this.calls.call(charge, card4242, () -> "must not run");
		}));
		assertThat(this.ledger.entries()).extracting(LedgerEntry::result).doesNotContain("charged card 4242424242424242");

		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> inRun("r3",
				() -> this.calls.call(charge, card4242, () -> {
					throw new UncheckedIOException(new SocketTimeoutException("read timed out"));
				})));
		Reconciler reconciler = new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class),
				new JsonMapper(), new ReconcilerSettings(Duration.ofMinutes(2), Map.of(), 100, Duration.ofMinutes(5),
						Duration.ofMinutes(1), Duration.ofMinutes(4), 10));
		this.ledger.advance(Duration.ofMinutes(3));
		reconciler.reconcile();
		assertThat(asked).as("the reconcile function reads the stored, redacted arguments")
			.singleElement()
			.isEqualTo(Map.of("card", Map.of("number", "[REDACTED]", "holder", "Ada"), "amount", 5));
	}

	@Test
	void aFunctionKeyedOnSomeArgumentsAnswersARephrasedRepeatFromItsRowAndNamesWhatWasNotApplied() throws Exception {
		IdempotentFunction<String> note = IdempotentFunction.builder("add_note", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.keyArguments("account")
			.build();
		this.calls.register(note);
		AtomicInteger added = new AtomicInteger();

		String first = inRun("r1", () -> this.calls.call(note, "{\"account\":\"acme\",\"text\":\"call back Monday\"}",
				() -> "note " + added.incrementAndGet()));
		String again = inRun("r1", () -> this.calls.call(note,
				"{\"account\":\"acme\",\"text\":\"Call them back on Monday\",\"urgent\":true}",
				() -> "note " + added.incrementAndGet()));

		assertThat(again).isEqualTo(first).isEqualTo("note 1");
		assertThat(this.told).last().satisfies((call) -> {
			assertThat(call.answer()).isEqualTo(Answer.REPLAYED_DIFFERENT_DETAILS);
			assertThat(call.differentDetails()).containsExactly("text", "urgent");
		});
		assertThat(this.ledger.entries()).singleElement()
			.satisfies((row) -> assertThat(row.key()).isEqualTo(IdempotencyKeys.derive("add_note", "{\"account\":\"acme\"}",
					"r1")));

		assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotentFunction.builder("add_note", String.class).keyArguments("a").keyExcludes("b"))
			.withMessageContaining("chosen once");
	}

	@Test
	void concurrentCallsOfOneKeyRunTheBodyOnce() throws Exception {
		int threads = 16;
		int rounds = 50;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				String runId = "race-" + round;
				CyclicBarrier start = new CyclicBarrier(threads);
				Callable<Object> call = () -> {
					start.await();
					try {
						return inRun(runId, () -> open("{\"account\":\"acme\"}"));
					}
					catch (ToolCallInProgressException ex) {
						return ex;
					}
				};
				List<Object> answers = new ArrayList<>();
				for (Future<Object> answer : pool.invokeAll(Collections.nCopies(threads, call))) {
					answers.add(answer.get());
				}
				assertThat(this.opened).as("round " + round).hasValue(round + 1);
				assertThat(answers.stream().filter(Ticket.class::isInstance).map(Ticket.class::cast).distinct())
					.as("every call that got a ticket got the one ticket")
					.hasSize(1);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static <T> T inRun(String runId, Callable<T> call) throws Exception {
		return RunContext.call(new Run(runId, "rep-1"), call);
	}

}
