package io.idempotency.advice;

import io.idempotency.IdempotencyConflictException;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.ResultNotStoredException;
import io.idempotency.Answer;
import io.idempotency.ToolResult;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallListener;
import io.idempotency.MissingRunException;
import io.idempotency.IdempotentTool;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.idempotency.OrderTools;
import io.idempotency.OrderTools.Order;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The advice's flow, through real Spring beans and the real advice, on the {@link InMemoryLedger}: no
 * database, so it runs in seconds. The database suites ({@code IdempotentToolContractTests} and its
 * subclasses) pin the same behaviour on every database; this one pins the flow's answers.
 */
class IdempotentToolAdviceTest {

	private final InMemoryLedger ledger = new InMemoryLedger();

	private final List<IdempotentCall> told = new CopyOnWriteArrayList<>();

	private AnnotationConfigApplicationContext context;

	private OrderTools tools;

	@BeforeEach
	void start() throws Exception {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.registerBean(IdempotentCallListener.class, () -> this.told::add);
		this.context.register(OrderTools.Enabled.class);
		this.context.refresh();
		this.tools = this.context.getBean(OrderTools.class);
	}

	@AfterEach
	void stop() throws Exception {
		this.context.close();
	}

	@Test
	void aRepeatIsAnsweredWithTheStoredResultAndNotExecuted() throws Exception {
		Order first = inRun("r1", () -> this.tools.placeOrder("pump", 2));
		Order repeat = inRun("r1", () -> this.tools.placeOrder("pump", 2));

		assertThat(repeat).isEqualTo(first);
		assertThat(this.tools.executions()).isEqualTo(1);
		assertThat(answers()).containsExactly(Answer.EXECUTED, Answer.REPLAYED);
		LedgerEntry row = this.ledger.entries().get(0);
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).contains(first.reference());
		assertThat(this.ledger.replays(row.key())).isEqualTo(1);
	}

	@Test
	void anotherRunOrOtherArgumentsAreAnotherCall() throws Exception {
		inRun("r1", () -> this.tools.placeOrder("pump", 2));
		inRun("r2", () -> this.tools.placeOrder("pump", 2));
		inRun("r1", () -> this.tools.placeOrder("pump", 3));

		assertThat(this.tools.orders()).isEqualTo(3);
		assertThat(answers()).containsOnly(Answer.EXECUTED);
	}

	@Test
	void aDefiniteFailureIsRecordedAndARepeatIsToldSoWithoutExecuting() throws Exception {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.refuseOrder("unobtainium")));
		assertThatExceptionOfType(PreviousAttemptFailedException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.refuseOrder("unobtainium")))
			.withMessageContaining("no such item");

		assertThat(this.tools.executions()).isEqualTo(1);
		assertThat(this.ledger.entries().get(0).status()).isEqualTo(LedgerStatus.FAILED);
		assertThat(answers()).containsExactly(Answer.FAILED, Answer.PREVIOUS_ATTEMPT_FAILED);
	}

	@Test
	void anAmbiguousFailureIsUnknownAndARepeatIsInProgress() throws Exception {
		ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged = new ch.qos.logback.core.read.ListAppender<>();
		ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
			.getLogger(IdempotentToolInterceptor.class);
		logged.start();
		logger.addAppender(logged);
		try {
			assertThatExceptionOfType(SocketTimeoutException.class)
				.isThrownBy(() -> inRun("r1", () -> this.tools.placeOrderTimingOut("pump", 2, true)));
		}
		finally {
			logger.detachAppender(logged);
		}
		assertThat(logged.list).singleElement()
			.satisfies((event) -> assertThat(event.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN))
			.extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
			.asString()
			.contains("java.net.SocketTimeoutException")
			.contains("its outcome is unknown");
		assertThatExceptionOfType(ToolCallInProgressException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.placeOrderTimingOut("pump", 2, true)));

		assertThat(this.tools.executions()).isEqualTo(1);
		assertThat(this.ledger.entries().get(0).status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(answers()).containsExactly(Answer.UNKNOWN, Answer.IN_PROGRESS);
	}

	@Test
	void anEnvelopeTellsTheModelWhatHappenedInsteadOfThrowing() throws Exception {
		ToolResult<Order> executed = inRun("r1", () -> this.tools.orderEnvelope("pump", false));
		ToolResult<Order> replayed = inRun("r1", () -> this.tools.orderEnvelope("pump", false));
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.orderEnvelope("valve", true)));
		ToolResult<Order> failed = inRun("r1", () -> this.tools.orderEnvelope("valve", true));

		assertThat(executed.replayed()).isFalse();
		assertThat(replayed.replayed()).isTrue();
		assertThat(replayed.kind()).isEqualTo(Answer.REPLAYED);
		assertThat(replayed.data()).isEqualTo(executed.data());
		assertThat(failed.ok()).isFalse();
		assertThat(failed.kind()).isEqualTo(Answer.PREVIOUS_ATTEMPT_FAILED);
		assertThat(failed.message()).contains("no such item");
		assertThat(this.tools.executions()).isEqualTo(2);
	}

	@Test
	void aResultThatCannotBeStoredIsRepeatedAsDoneWithoutItNeverAsNull() throws Exception {
		inRun("r1", () -> this.tools.unwritableOrder("pump"));

		assertThatExceptionOfType(ResultNotStoredException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.unwritableOrder("pump")));
		LedgerEntry row = this.ledger.entries().get(0);
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).isNull();
		assertThat(row.error()).startsWith("The result is not stored");
		assertThat(answers()).containsExactly(Answer.EXECUTED, Answer.REPLAYED_WITHOUT_RESULT);
	}

	@Test
	void aCallOutsideARunIsRefusedAndNothingIsClaimedOrExecuted() throws Exception {
		assertThatExceptionOfType(MissingRunException.class).isThrownBy(() -> this.tools.placeOrder("pump", 2));

		assertThat(this.tools.executions()).isZero();
		assertThat(this.ledger.entries()).isEmpty();
		assertThat(answers()).containsExactly(Answer.REFUSED_WITHOUT_RUN);
	}

	@Test
	void anotherUsersKeyIsRefusedWithoutRevealingItsRow() throws Exception {
		RunContext.call(new Run("r1", "alice"), () -> this.tools.placeOrder("pump", 2));

		assertThatExceptionOfType(IdempotencyConflictException.class)
			.isThrownBy(() -> RunContext.call(new Run("r1", "mallory"), () -> this.tools.placeOrder("pump", 2)));
		assertThat(this.tools.executions()).isEqualTo(1);
		assertThat(answers()).containsExactly(Answer.EXECUTED, Answer.REFUSED_CONFLICT);
	}

	@Test
	void concurrentIdenticalCallsExecuteOncePerRound() throws Exception {
		int threads = 16;
		int rounds = 50;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				String runId = "round-" + round;
				CyclicBarrier start = new CyclicBarrier(threads);
				Callable<Object> call = () -> {
					start.await();
					try {
						return inRun(runId, () -> this.tools.placeOrder("pump", 2));
					}
					catch (ToolCallInProgressException ex) {
						return ex;
					}
				};
				List<Future<Object>> calls = pool.invokeAll(java.util.Collections.nCopies(threads, call));
				for (Future<Object> done : calls) {
					assertThat(done.get()).isNotNull();
				}
				assertThat(this.tools.executions()).as("round %d", round).isEqualTo(round + 1);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.tools.orders()).isEqualTo(rounds);
	}

	@Test
	void aTransactionalToolStopsTheStartWhereTheLedgerIsNotOnADatabase() throws Exception {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(InMemoryLedger.class, () -> new InMemoryLedger());
		context.registerBean(NoteTools.class, NoteTools::new);
		context.register(EnableTools.class);

		assertThatIllegalStateException().isThrownBy(context::refresh)
			.withMessageContaining("is transactional, but the ledger is not on a database")
			.withMessageContaining("Declare a JdbcLedger");
	}

	@Test
	void severalLedgersWithNoneOfThemPrimaryStopTheStart() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean("oneLedger", InMemoryLedger.class, () -> new InMemoryLedger());
		context.registerBean("otherLedger", InMemoryLedger.class, () -> new InMemoryLedger());
		context.register(OrderTools.Enabled.class);

		assertThatIllegalStateException().isThrownBy(context::refresh)
			.withMessageContaining("there are several ledgers [oneLedger, otherLedger] and none is primary");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class EnableTools {

	}

	static class NoteTools {

		@IdempotentTool(name = "record_note", transactional = true)
		public String recordNote(String text) {
			return text;
		}

	}

	private List<Answer> answers() {
		return this.told.stream().map(IdempotentCall::answer).toList();
	}

	private static <T> T inRun(String runId, Callable<T> call) throws Exception {
		return RunContext.call(new Run(runId, "rep-1"), call);
	}

}
