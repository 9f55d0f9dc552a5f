package io.idempotency;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import java.io.IOException;
import java.time.Duration;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.QuoteTools.Quote;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.OutcomeWriteBehind;
import io.idempotency.ledger.Redaction;
import io.idempotency.ledger.ReplayCache;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.CountingDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.ai.chat.model.ToolContext;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Idempotent tools through real Spring beans, the real advice and a real ledger, with effects counted in
 * a real table. A subclass names the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class IdempotentToolContractTests {

	static final String LEDGER_TABLE = "tool_audit_tools_test";

	private AnnotationConfigApplicationContext context;

	QuoteTools tools;

	JdbcLedger ledger;

	JdbcTemplate jdbc;

	abstract DataSource dataSource();

	/** What the tests need to know of the database this suite runs on. */
	abstract DatabaseFacts facts();

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	@EnableTransactionManagement
	static class Tools {

		@Bean
		JdbcLedger ledger(DataSource dataSource, ObjectProvider<ReplayCache> replayCache,
				ObjectProvider<OutcomeWriteBehind> writeBehind) {
			return new JdbcLedger(dataSource, LEDGER_TABLE, Redaction.defaults(),
					replayCache.getIfAvailable(ReplayCache::off), writeBehind.getIfAvailable(OutcomeWriteBehind::off));
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		QuoteTools quoteTools(DataSource dataSource) {
			return new QuoteTools(new JdbcTemplate(dataSource));
		}

		@Bean
		OrderDesk orderDesk(DataSource dataSource) {
			return new OrderDesk(new JdbcTemplate(dataSource));
		}

	}

	@BeforeEach
	void start() {
		if (this.context == null) {
			DataSource dataSource = dataSource();
			LedgerSchema.drop(dataSource, LEDGER_TABLE);
			LedgerSchema.create(dataSource, LEDGER_TABLE);
			this.jdbc = new JdbcTemplate(dataSource);
			this.jdbc.execute("DROP TABLE IF EXISTS quotes");
			this.jdbc.execute("DROP TABLE IF EXISTS sent_invoices");
			this.jdbc.execute("CREATE TABLE sent_invoices (invoice VARCHAR(100) NOT NULL)");
			this.jdbc.execute("DROP TABLE IF EXISTS " + LEDGER_TABLE + "_away");
			this.jdbc.execute("CREATE TABLE quotes (id " + facts().identityColumn() + ", account_name VARCHAR(200) NOT NULL,"
					+ " sku VARCHAR(50) NOT NULL, quantity INT NOT NULL, reference VARCHAR(40) NOT NULL)");
			this.context = new AnnotationConfigApplicationContext();
			// Shared for the whole test run: the context must not close it.
			this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
			this.context.register(Tools.class);
			this.context.refresh();
			this.tools = this.context.getBean(QuoteTools.class);
			this.ledger = this.context.getBean(JdbcLedger.class);
		}
		this.jdbc.update("DELETE FROM quotes");
		this.jdbc.update("DELETE FROM sent_invoices");
		this.jdbc.update("DELETE FROM " + LEDGER_TABLE);
	}

	@Test
	void aTransactionalCallAsksForItsIsolationOnlyWhereThePoolsConnectionsAreNotAlreadyAtReadCommitted() {
		assertThat(roundTripsOfATransactionalCall(dataSource())).isEqualTo(facts().transactionalCallRoundTrips());
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM quotes", Integer.class)).isEqualTo(2);
	}

	/** The round trips of the second of two transactional calls through a context on this DataSource. */
	long roundTripsOfATransactionalCall(DataSource dataSource) {
		CountingDataSource counting = new CountingDataSource(dataSource);
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(DataSource.class, () -> new DelegatingDataSource(counting));
			context.register(Tools.class);
			context.refresh();
			QuoteTools counted = context.getBean(QuoteTools.class);
			RunContext.supply(new Run("round-trips-1", "rep-1"), () -> counted.recordNote("Henderson Industrial", false));
			counting.reset();

			RunContext.supply(new Run("round-trips-2", "rep-1"), () -> counted.recordNote("Henderson Industrial", false));

			assertThat(counting.statements()).hasSize(4);
			return counting.roundTrips();
		}
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
			LedgerSchema.drop(dataSource(), LEDGER_TABLE);
			this.jdbc.execute("DROP TABLE IF EXISTS quotes");
		}
	}

	static <T> T inRun(String runId, String userId, java.util.function.Supplier<T> work) {
		return RunContext.supply(new Run(runId, userId), work);
	}

	// The reference tests

	@Test
	void aRetriedCallProducesOneEffect() {
		Quote first = inRun("r1", "rep-1", () -> this.tools.draftQuote("Henderson Industrial", "SKU-4411", 200));
		Quote second = inRun("r1", "rep-1", () -> this.tools.draftQuote("Henderson Industrial", "SKU-4411", 200));

		assertThat(this.tools.quotes()).isEqualTo(1);
		assertThat(second).isEqualTo(first);
	}

	@Test
	void argumentOrderAndPaddingDoNotChangeTheKey() {
		Map<String, Integer> ordered = new LinkedHashMap<>();
		ordered.put("SKU-4411", 200);
		ordered.put("SKU-4480", 50);
		Map<String, Integer> reordered = new LinkedHashMap<>();
		reordered.put("SKU-4480", 50);
		reordered.put("SKU-4411", 200);

		inRun("r1", "rep-1", () -> this.tools.draftQuotes("Henderson", ordered));
		inRun("r1", "rep-1", () -> this.tools.draftQuotes(" Henderson\n", reordered));
		inRun("r1", "rep-1", () -> this.tools.draftQuote("Henderson", "SKU-4411", 200));
		inRun("r1", "rep-1", () -> this.tools.draftQuote("\u00a0Henderson ", " SKU-4411", 200));

		assertThat(this.tools.quotes()).isEqualTo(3);
	}

	/**
	 * A new run is a new intent. DO NOT "fix" this by scoping keys to the user: a rep who asks for the same
	 * quote on Monday and again on Tuesday made two requests, and gets two quotes.
	 */
	@Test
	void aNewRunIsANewIntent() {
		inRun("monday", "rep-1", () -> this.tools.draftQuote("Henderson Industrial", "SKU-4411", 200));
		inRun("tuesday", "rep-1", () -> this.tools.draftQuote("Henderson Industrial", "SKU-4411", 200));

		assertThat(this.tools.quotes()).isEqualTo(2);
	}

	@Test
	void theSameRequestProducesTheSameKeyAsTheSpecificationSays() {
		inRun("r1", "rep-1", () -> this.tools.draftQuote("Henderson Industrial", "SKU-4411", 200));

		var key = IdempotencyKeys.derive("draft_quote",
				"{\"sku\":\"SKU-4411\",\"quantity\":200,\"accountName\":\"Henderson Industrial\"}", "r1");
		LedgerEntry entry = this.ledger.find(key).orElseThrow();
		assertThat(entry.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(entry.userId()).isEqualTo("rep-1");
		assertThat(this.jdbc.queryForObject("SELECT reference FROM quotes", String.class))
			.isEqualTo(key.externalReference("q"));
	}

	// Many callers at once

	@Test
	void thirtyTwoConcurrentIdenticalCallsExecuteOncePerRound() throws Exception {
		int rounds = 200;
		List<Object> answers = concurrently(32, rounds, (runId) -> this.tools.draftQuote("Henderson", "SKU-4411", 200));

		assertThat(answers).allSatisfy((answer) -> assertThat(answer).isInstanceOfAny(Quote.class,
				ToolCallInProgressException.class));
		// Every round has a winner, so as many quotes as rounds means exactly one per round.
		assertThat(this.tools.quotes()).isEqualTo(rounds);
	}

	// Replays

	@Test
	void genericResultTypesSurviveAReplay() {
		Map<String, Integer> quantities = Map.of("SKU-1", 1, "SKU-2", 2);
		List<Quote> first = inRun("r1", "rep-1", () -> this.tools.draftQuotes("Henderson", quantities));
		List<Quote> replayed = inRun("r1", "rep-1", () -> this.tools.draftQuotes("Henderson", quantities));
		assertThat(replayed).hasSize(2).allSatisfy((q) -> assertThat(q).isInstanceOf(Quote.class));
		assertThat(replayed).containsExactlyElementsOf(first);

		Optional<Quote> some = inRun("r1", "rep-1", () -> this.tools.maybeQuote("Henderson", true));
		assertThat(inRun("r1", "rep-1", () -> this.tools.maybeQuote("Henderson", true))).isEqualTo(some).isPresent();
		assertThat(inRun("r1", "rep-1", () -> this.tools.maybeQuote("Henderson", false))).isEmpty();
		assertThat(inRun("r1", "rep-1", () -> this.tools.maybeQuote("Henderson", false))).isEmpty();

		assertThat(this.tools.quotes()).isEqualTo(3);
	}

	@Test
	void anEnvelopeTellsTheModelWhatHappened() {
		ToolResult<List<Quote>> executed = inRun("r1", "rep-1", () -> this.tools.quoteEnvelope("Henderson", false));
		ToolResult<List<Quote>> replayed = inRun("r1", "rep-1", () -> this.tools.quoteEnvelope("Henderson", false));

		assertThat(executed.kind()).isEqualTo(Answer.EXECUTED);
		assertThat(executed.replayed()).isFalse();
		assertThat(replayed.kind()).isEqualTo(Answer.REPLAYED);
		assertThat(replayed.replayed()).isTrue();
		assertThat(replayed.ok()).isTrue();
		assertThat(replayed.message()).contains("Already done earlier in this run");
		assertThat(replayed.data()).containsExactlyElementsOf(executed.data());
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	@Test
	void anEnvelopeReportsAPreviousFailureWithoutExecuting() {
		assertThatThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.quoteEnvelope("Henderson", true)))
			.isInstanceOf(IllegalArgumentException.class);

		ToolResult<List<Quote>> repeat = inRun("r1", "rep-1", () -> this.tools.quoteEnvelope("Henderson", true));

		assertThat(repeat.ok()).isFalse();
		assertThat(repeat.kind()).isEqualTo(Answer.PREVIOUS_ATTEMPT_FAILED);
		assertThat(repeat.message()).contains("failed").contains("account Henderson is closed");
	}

	// Failures

	@Test
	void anAmbiguousFailureLeavesTheRowUnknownAndARepeatIsInProgress() {
		int attempts = this.tools.sendAttempts();
		Run run = new Run("r1", "rep-1");
		SocketTimeoutException timeout = catchThrowable(() -> RunContext.call(run, () -> {
			this.tools.sendQuote("Henderson", "timeout");
			return null;
		}), SocketTimeoutException.class);
		assertThat(timeout).hasMessage("Read timed out");

		var key = IdempotencyKeys.derive("send_quote", "{\"accountName\":\"Henderson\",\"failure\":\"timeout\"}", "r1");
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThatExceptionOfType(ToolCallInProgressException.class).isThrownBy(() -> RunContext.call(run, () -> {
			this.tools.sendQuote("Henderson", "timeout");
			return null;
		})).withMessageContaining("Do not retry it");
		assertThat(this.tools.sendAttempts() - attempts).isEqualTo(1);
	}

	@Test
	void aCallInterruptedOrCancelledAfterItsEffectIsUnknownNotFailed() {
		Run run = new Run("r1", "rep-1");
		for (String failure : List.of("interrupted", "cancelled")) {
			int attempts = this.tools.sendAttempts();
			int quotes = this.tools.quotes();
			try {
				assertThatThrownBy(() -> RunContext.call(run, () -> {
					this.tools.sendQuote("Henderson", failure);
					return null;
				})).as(failure).isInstanceOfAny(RuntimeException.class);
			}
			finally {
				// The tool kept its interrupt for its caller: the test thread clears it.
				Thread.interrupted();
			}

			var key = IdempotencyKeys.derive("send_quote", "{\"accountName\":\"Henderson\",\"failure\":\"" + failure + "\"}",
					"r1");
			assertThat(this.ledger.find(key).orElseThrow().status()).as(failure).isEqualTo(LedgerStatus.UNKNOWN);
			assertThatExceptionOfType(ToolCallInProgressException.class).as(failure).isThrownBy(() -> RunContext.call(run, () -> {
				this.tools.sendQuote("Henderson", failure);
				return null;
			}));
			assertThat(this.tools.sendAttempts() - attempts).as(failure).isEqualTo(1);
			assertThat(this.tools.quotes() - quotes).as(failure).isEqualTo(1);
		}
	}

	@Test
	void aRetryWithACorrectedWriteOnlyMemberRunsInsteadOfReplayingTheFailure() {
		Run run = new Run("r1", "rep-1");
		assertThatThrownBy(() -> RunContext.supply(run,
				() -> this.tools.pay(new QuoteTools.Payment("Henderson", new java.math.BigDecimal("5000")))))
			.isInstanceOf(IllegalArgumentException.class);

		String paid = RunContext.supply(run, () -> this.tools.pay(new QuoteTools.Payment("Henderson", new java.math.BigDecimal("50"))));

		assertThat(paid).startsWith("paid 50 #");
		assertThat(this.tools.payments()).isEqualTo(1);
		// A write-only member is the usual mark of a secret: part of the key, and stored redacted.
		String stored = this.jdbc.queryForList("SELECT arguments, error FROM " + LEDGER_TABLE + " WHERE tool = 'pay'")
			.toString();
		assertThat(stored).contains("Henderson").contains(io.idempotency.ledger.Redaction.REDACTED).doesNotContain("5000");
		assertThat(RunContext.supply(run, () -> this.tools.pay(new QuoteTools.Payment("Henderson", new java.math.BigDecimal("50")))))
			.isEqualTo(paid);
	}

	@Test
	void aResultLargerThanTheLedgerStoresIsRecordedAsDoneWithoutIt() {
		Run run = new Run("r1", "rep-1");
		assertThat(RunContext.supply(run, () -> this.tools.exportText("Henderson", 1536))).hasSize(1536 * 1024);

		var key = IdempotencyKeys.derive("export_text", "{\"accountName\":\"Henderson\",\"kibibytes\":1536}", "r1");
		LedgerEntry row = this.ledger.find(key).orElseThrow();
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).isNull();
		assertThat(row.error()).contains("more than the 1048576 the ledger stores");
		assertThatExceptionOfType(ResultNotStoredException.class)
			.isThrownBy(() -> RunContext.supply(run, () -> this.tools.exportText("Henderson", 1536)));
		assertThat(this.tools.exports()).isEqualTo(1);
	}

	@Test
	void aGatewayTimeoutIsAnUnknownOutcomeNotAFailure() {
		Run run = new Run("r1", "rep-1");
		assertThatThrownBy(() -> RunContext.call(run, () -> this.tools.placeOrder("Henderson", "SKU-504")))
			.isInstanceOf(org.springframework.web.client.HttpServerErrorException.GatewayTimeout.class);

		var key = IdempotencyKeys.derive("place_order", "{\"accountName\":\"Henderson\",\"sku\":\"SKU-504\"}", "r1");
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThatExceptionOfType(ToolCallInProgressException.class)
			.isThrownBy(() -> RunContext.call(run, () -> this.tools.placeOrder("Henderson", "SKU-504")));
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	@Test
	void aDefiniteFailureIsRecordedAndNotRetriedInTheRun() {
		int attempts = this.tools.sendAttempts();
		Run run = new Run("r1", "rep-1");
		IllegalArgumentException rejected = catchThrowable(() -> RunContext.call(run, () -> {
			this.tools.sendQuote("Henderson", "rejected");
			return null;
		}), IllegalArgumentException.class);
		assertThat(rejected).hasMessage("rejected by the mail server");

		assertThatExceptionOfType(PreviousAttemptFailedException.class).isThrownBy(() -> RunContext.call(run, () -> {
			this.tools.sendQuote("Henderson", "rejected");
			return null;
		})).withMessageContaining("rejected by the mail server");
		assertThat(this.tools.sendAttempts() - attempts).isEqualTo(1);
	}

	@Test
	void aToolCanDeclareWhichOfItsFailuresAreAmbiguous() {
		Run run = new Run("r1", "rep-1");
		catchThrowable(() -> RunContext.call(run, () -> {
			this.tools.sendQuote("Henderson", "ambiguous");
			return null;
		}), IllegalStateException.class);

		var key = IdempotencyKeys.derive("send_quote", "{\"accountName\":\"Henderson\",\"failure\":\"ambiguous\"}", "r1");
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.UNKNOWN);
	}

	// Users and runs

	@Test
	void aReplayNeverCrossesUsers() {
		inRun("shared-run", "alice", () -> this.tools.draftQuote("Henderson", "SKU-4411", 200));

		assertThatExceptionOfType(IdempotencyConflictException.class)
			.isThrownBy(() -> inRun("shared-run", "bob", () -> this.tools.draftQuote("Henderson", "SKU-4411", 200)))
			.withMessageNotContaining("Henderson");
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	@Test
	void aCallOutsideARunIsRefusedAndNothingIsExecuted() {
		assertThatExceptionOfType(MissingRunException.class)
			.isThrownBy(() -> this.tools.draftQuote("Henderson", "SKU-4411", 200))
			.withMessage(Answer.REFUSED_WITHOUT_RUN.message())
			.satisfies((refused) -> assertThat(refused.tool()).isEqualTo("draft_quote"));
		assertThat(this.tools.quotes()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();
	}

	@Test
	void theRunComesFromSpringAisToolContext() {
		ToolContext context = new ToolContext(Map.of("runId", "ctx-run", "userId", "rep-9"));
		this.tools.quoteWithContext("Henderson", context);
		this.tools.quoteWithContext("Henderson", new ToolContext(Map.of("runId", "ctx-run", "userId", "rep-9")));

		assertThat(this.tools.quotes()).isEqualTo(1);
		var key = IdempotencyKeys.derive("quote_with_context", "{\"accountName\":\"Henderson\"}", "ctx-run");
		assertThat(this.ledger.find(key).orElseThrow().userId()).isEqualTo("rep-9");
	}

	@Test
	void theToolBodyKnowsItsOwnKeyAndOnlyThere() {
		inRun("r1", "rep-1", () -> this.tools.draftQuote("Henderson", "SKU-4411", 200));
		assertThat(IdempotentInvocation.find()).isEmpty();
		assertThatThrownBy(IdempotentInvocation::current).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("@IdempotentTool");
	}

	// Transactions

	@Test
	void aTransactionalToolCommitsClaimEffectAndOutcomeTogether() {
		assertThatThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.recordNote("Henderson", true)))
			.isInstanceOf(IllegalStateException.class);
		assertThat(this.tools.quotes()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();

		Quote first = inRun("r1", "rep-1", () -> this.tools.recordNote("Henderson", false));
		Quote again = inRun("r1", "rep-1", () -> this.tools.recordNote("Henderson", false));

		assertThat(again).isEqualTo(first);
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	@Test
	void concurrentCallsOfATransactionalToolThatRollsBackNeverFailWithALockError() throws Exception {
		List<Object> answers = concurrently(12, 25, (runId) -> this.tools.recordNote("Henderson", true));

		assertThat(answers).allSatisfy((answer) -> assertThat(answer).satisfiesAnyOf(
				(a) -> assertThat(a).isInstanceOf(ToolCallInProgressException.class),
				(a) -> assertThat(a).isInstanceOf(IllegalStateException.class).hasFieldOrPropertyWithValue("message",
						"failed after the write")));
		assertThat(this.tools.quotes()).isZero();
	}

	@Test
	void concurrentIdenticalCallsOfATransactionalToolExecuteOncePerRound() throws Exception {
		int rounds = 25;
		List<Object> answers = concurrently(12, rounds, (runId) -> this.tools.recordNote("Henderson", false));

		assertThat(answers).allSatisfy((answer) -> assertThat(answer).isInstanceOfAny(Quote.class,
				ToolCallInProgressException.class));
		assertThat(this.tools.quotes()).isEqualTo(rounds);
	}

	@Test
	void aRepeatThatRephrasesADetailLeftOutOfTheKeyIsOneActionAndIsToldWhatWasNotApplied() {
		Quote first = inRun("case-run", "rep-1", () -> this.tools.openCase("Henderson", "seal failure",
				"Seal failure on pump 3"));
		IdempotentCall repeat;
		Quote again;
		try (IdempotentCallScope scope = IdempotentCallScope.open()) {
			again = inRun("case-run", "rep-1", () -> this.tools.openCase("Henderson", " seal failure",
					"The seal on pump 3 failed"));
			repeat = scope.last().orElseThrow();
		}
		IdempotentCall same;
		try (IdempotentCallScope scope = IdempotentCallScope.open()) {
			inRun("case-run", "rep-1", () -> this.tools.openCase("Henderson", "seal failure", "Seal failure on pump 3 "));
			same = scope.last().orElseThrow();
		}

		assertThat(again).isEqualTo(first);
		assertThat(this.tools.quotes()).as("one case").isEqualTo(1);
		assertThat(repeat.answer()).isEqualTo(Answer.REPLAYED_DIFFERENT_DETAILS);
		assertThat(repeat.differentDetails()).containsExactly("description");
		assertThat(repeat.message()).contains("differ from it and were not applied: description");
		assertThat(AnswerText.replayed(repeat, "{\"id\":1}")).contains("\"kind\":\"replayed_different_details\"",
				"\"differentDetails\":[\"description\"]");
		assertThat(same.answer()).as("the same details, as keys compare them").isEqualTo(Answer.REPLAYED);
		assertThat(this.ledger.find(IdempotencyKeys.derive("open_case",
				Map.of("accountName", "Henderson", "issue", "seal failure"), "case-run")))
			.as("keyed on the account and the issue; every argument stored")
			.hasValueSatisfying((row) -> assertThat(row.arguments()).contains("Seal failure on pump 3"));

		Quote otherIssue = inRun("case-run", "rep-1", () -> this.tools.openCase("Henderson", "pump noise", "Noisy"));
		assertThat(otherIssue).isNotEqualTo(first);
		assertThat(this.tools.quotes()).as("another issue is another case").isEqualTo(2);
	}

	@Test
	void aToolThatRefusesDifferentDetailsRefusesTheRepeatNamingThemAndNeverRunsIt() {
		ToolResult<Quote> first = inRun("strict-run", "rep-1", () -> this.tools.openStrictCase("Henderson",
				"seal failure", "Seal failure"));
		assertThatExceptionOfType(DifferentDetailsException.class)
			.isThrownBy(() -> inRun("strict-run", "rep-1", () -> this.tools.openStrictCase("Henderson", "seal failure",
					"The seal failed")))
			.satisfies((refused) -> assertThat(refused.differentDetails()).containsExactly("description"))
			.withMessageContaining("details differ from it: description");
		ToolResult<Quote> same = inRun("strict-run", "rep-1", () -> this.tools.openStrictCase("Henderson",
				"seal failure", "Seal failure"));

		assertThat(same.kind()).isEqualTo(Answer.REPLAYED);
		assertThat(same.data()).isEqualTo(first.data());
		assertThat(this.tools.quotes()).isEqualTo(1);

		ToolResult<Quote> filed = inRun("file-run", "rep-1", () -> this.tools.fileCase(new QuoteTools.Case("Acme",
				"valve leak", "Leaking valve")));
		ToolResult<Quote> refiled = inRun("file-run", "rep-1", () -> this.tools.fileCase(new QuoteTools.Case("Acme",
				"valve leak", "The valve leaks")));
		assertThat(refiled.kind()).isEqualTo(Answer.REPLAYED_DIFFERENT_DETAILS);
		assertThat(refiled.message()).contains("request.description");
		assertThat(refiled.data()).isEqualTo(filed.data());
		assertThat(this.tools.quotes()).isEqualTo(2);
	}

	@Test
	void concurrentTwinsOfAToolThatWaitsForItsRunningCallGetOneExecutionAndItsOutcomeNeverInProgress()
			throws Exception {
		int threads = 16;
		int rounds = 6;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < rounds; round++) {
				String runId = "twins-" + round;
				boolean fails = round % 3 == 2;
				IdempotencyKey key = IdempotencyKeys.derive("twin_quote",
						Map.of("accountName", "Henderson", "fail", fails), runId);
				QuoteTools.twinRelease = new java.util.concurrent.CountDownLatch(1);
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<Object>> answers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					answers.add(pool.submit((Callable<Object>) () -> {
						start.await();
						try {
							return inRun(runId, "rep-1", () -> {
								try {
									return this.tools.twinQuote("Henderson", fails);
								}
								catch (InterruptedException ex) {
									throw new IllegalStateException(ex);
								}
							});
						}
						catch (RuntimeException ex) {
							return ex;
						}
					}));
				}
				// Every repeat has found the call running (each counted as a replay) before it may settle.
				await().atMost(Duration.ofSeconds(30)).until(() -> {
					this.ledger.flushReplayCounts();
					return this.ledger.find(key).map(LedgerEntry::replayCount).orElse(0) >= threads - 1;
				});
				QuoteTools.twinRelease.countDown();
				List<Object> results = new ArrayList<>();
				for (Future<Object> answer : answers) {
					results.add(answer.get(60, java.util.concurrent.TimeUnit.SECONDS));
				}

				assertThat(results).as("round %s", round).noneMatch(ToolCallInProgressException.class::isInstance);
				if (fails) {
					assertThat(results).filteredOn(IllegalArgumentException.class::isInstance).hasSize(1);
					assertThat(results).filteredOn(PreviousAttemptFailedException.class::isInstance).hasSize(threads - 1);
				}
				else {
					assertThat(results).allSatisfy((result) -> assertThat(result).isInstanceOf(Quote.class));
					assertThat(results.stream().distinct()).as("one quote, the executed call's").hasSize(1);
				}
			}
			assertThat(this.tools.quotes()).isEqualTo(4);
		}
		finally {
			QuoteTools.twinRelease.countDown();
			pool.shutdownNow();
		}
	}

	@Test
	void aRepeatThatWaitsPastItsBoundIsToldTheCallIsInProgressWhileTheCallStillRuns() throws Exception {
		QuoteTools.impatientRelease = new java.util.concurrent.CountDownLatch(1);
		ExecutorService first = Executors.newSingleThreadExecutor();
		try {
			IdempotencyKey key = IdempotencyKeys.derive("impatient_quote", Map.of("accountName", "Henderson"), "slow");
			Future<Quote> running = first.submit(() -> inRun("slow", "rep-1", () -> {
				try {
					return this.tools.impatientQuote("Henderson");
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}));
			await().atMost(Duration.ofSeconds(30)).until(() -> this.ledger.find(key).isPresent());

			assertThatExceptionOfType(ToolCallInProgressException.class).isThrownBy(() -> inRun("slow", "rep-1", () -> {
				try {
					return this.tools.impatientQuote("Henderson");
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}));
			assertThat(running).as("the repeat answered while the call still ran").isNotDone();

			QuoteTools.impatientRelease.countDown();
			assertThat(running.get(30, java.util.concurrent.TimeUnit.SECONDS).accountName()).isEqualTo("Henderson");
			assertThat(this.tools.quotes()).isEqualTo(1);
		}
		finally {
			QuoteTools.impatientRelease.countDown();
			first.shutdownNow();
		}
	}

	/**
	 * Another instance of the application on the same table, whose ledger writes outcomes behind their callers and
	 * holds them (an hour's delay, batches of a hundred) until it closes or is told to write them.
	 */
	private AnnotationConfigApplicationContext instanceWritingBehind() {
		AnnotationConfigApplicationContext instance = new AnnotationConfigApplicationContext();
		instance.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource()));
		instance.registerBean(OutcomeWriteBehind.class, () -> new OutcomeWriteBehind(100, 100, Duration.ofHours(1)));
		instance.register(Tools.class);
		instance.refresh();
		return instance;
	}

	/**
	 * With write-behind, a twin that waits for the running call on the instance that runs it is answered from the
	 * call's outcome as soon as it waits there to be written: a replay, as a repeat made then would be, never
	 * "in progress" for the row that is still attempting in the table.
	 */
	@Test
	void aTwinWaitingOnTheInstanceThatRanTheCallIsReplayedFromItsOutcomeThatWaitsToBeWritten() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try (AnnotationConfigApplicationContext instance = instanceWritingBehind()) {
			QuoteTools tools = instance.getBean(QuoteTools.class);
			JdbcLedger ledger = instance.getBean(JdbcLedger.class);
			for (int round = 0; round < 3; round++) {
				String runId = "held-" + round;
				IdempotencyKey key = IdempotencyKeys.derive("twin_quote", Map.of("accountName", "Henderson", "fail", false),
						runId);
				QuoteTools.twinRelease = new java.util.concurrent.CountDownLatch(1);
				Callable<Quote> call = () -> inRun(runId, "rep-1", () -> twinQuote(tools));
				Future<Quote> first = pool.submit(call);
				await().atMost(Duration.ofSeconds(30)).until(() -> ledger.find(key).isPresent());
				Future<Quote> twin = pool.submit(call);
				// The twin found the call running (counted as a replay) and waits.
				await().atMost(Duration.ofSeconds(30)).until(() -> {
					ledger.flushReplayCounts();
					return ledger.find(key).orElseThrow().replayCount() == 1;
				});

				QuoteTools.twinRelease.countDown();
				Quote quote = first.get(30, TimeUnit.SECONDS);

				assertThat(twin.get(10, TimeUnit.SECONDS)).as("round %s", round).isEqualTo(quote);
				assertThat(ledger.find(key).orElseThrow().status()).as("the outcome still waits to be written")
					.isEqualTo(LedgerStatus.ATTEMPTING);
			}
			assertThat(tools.quotes()).isEqualTo(3);
		}
		finally {
			QuoteTools.twinRelease.countDown();
			pool.shutdownNow();
		}
	}

	/**
	 * A call's row deleted by hand while the call runs, and the same call made again on the same instance, which
	 * executes it anew: the first call's failure belongs to its own row, which is gone, and is never recorded on
	 * the second call's, which a repeat finds in progress until the second call's own success is recorded.
	 * Through the advice, on a call whose body returns its result and on one whose body completes later, with the
	 * outcome written by its caller and written behind it.
	 */
	@Test
	void aFailureOfACallWhoseRowWasDeletedIsNeverRecordedOnTheRowOfTheSameCallMadeAgain() throws Exception {
		failureAfterTheRowWasDeletedAndTheCallMadeAgain(this.context, "deleted-1", false);
		failureAfterTheRowWasDeletedAndTheCallMadeAgain(this.context, "deleted-2", true);
		try (AnnotationConfigApplicationContext instance = instanceWritingBehind()) {
			failureAfterTheRowWasDeletedAndTheCallMadeAgain(instance, "deleted-3", false);
			failureAfterTheRowWasDeletedAndTheCallMadeAgain(instance, "deleted-4", true);
		}
	}

	private final IdempotentFunction<String> bookCourier = IdempotentFunction.builder("book_courier", String.class)
		.reconcile((key, arguments) -> Reconciliation.notFound())
		.build();

	private void failureAfterTheRowWasDeletedAndTheCallMadeAgain(AnnotationConfigApplicationContext instance,
			String runId, boolean async) throws Exception {
		IdempotentFunction<String> book = this.bookCourier;
		IdempotentCalls calls = instance.getBean(IdempotentCalls.class);
		calls.register(book);
		JdbcLedger ledger = instance.getBean(JdbcLedger.class);
		Run run = new Run(runId, "rep-1");
		Map<String, String> parcel = Map.of("parcel", "P-1");
		IdempotencyKey key = IdempotencyKeys.derive("book_courier", parcel, runId);
		java.util.concurrent.CountDownLatch firstRelease = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CountDownLatch secondRelease = new java.util.concurrent.CountDownLatch(1);
		// Callers, bodies and the recording of their outcomes, each blocking one thread.
		ExecutorService pool = Executors.newCachedThreadPool();
		Function<Supplier<String>, Callable<String>> calling = (body) -> () -> RunContext.supply(run,
				() -> async ? calls.callAsync(book, parcel, () -> CompletableFuture.supplyAsync(body, pool), pool)
					.toCompletableFuture()
					.join() : calls.call(book, parcel, body));
		try {
			Future<String> first = pool.submit(calling.apply(() -> {
				awaitRelease(firstRelease);
				throw new IllegalStateException("the courier refused the parcel");
			}));
			await().atMost(Duration.ofSeconds(30)).until(() -> ledger.find(key).isPresent());
			long firstRow = ledger.find(key).orElseThrow().id();
			this.jdbc.update("DELETE FROM " + LEDGER_TABLE + " WHERE id = ?", firstRow);
			Future<String> second = pool.submit(calling.apply(() -> {
				awaitRelease(secondRelease);
				return "booked P-1";
			}));
			await().atMost(Duration.ofSeconds(30))
				.until(() -> ledger.find(key).filter((row) -> row.id() != firstRow).isPresent());
			long secondRow = ledger.find(key).orElseThrow().id();

			firstRelease.countDown();
			assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasRootCauseInstanceOf(IllegalStateException.class)
				.hasRootCauseMessage("the courier refused the parcel");

			assertThat(ledger.find(key).orElseThrow()).satisfies((row) -> {
				assertThat(row.id()).isEqualTo(secondRow);
				assertThat(row.status()).as("the second call, still running").isEqualTo(LedgerStatus.ATTEMPTING);
			});
			assertThatThrownBy(() -> pool.submit(calling.apply(() -> {
				throw new AssertionError("a repeat must not run");
			})).get(30, TimeUnit.SECONDS)).as("a repeat while the second call runs")
				.hasRootCauseInstanceOf(ToolCallInProgressException.class);
			secondRelease.countDown();
			assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("booked P-1");
			ledger.writePendingOutcomes();
			assertThat(ledger.find(key).orElseThrow()).satisfies((row) -> {
				assertThat(row.id()).isEqualTo(secondRow);
				assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
			});
			assertThat(pool.submit(calling.apply(() -> {
				throw new AssertionError("a repeat must not run");
			})).get(30, TimeUnit.SECONDS)).as("a repeat once the second call succeeded").isEqualTo("booked P-1");
		}
		finally {
			firstRelease.countDown();
			secondRelease.countDown();
			pool.shutdownNow();
		}
	}

	private static void awaitRelease(java.util.concurrent.CountDownLatch release) {
		try {
			if (!release.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("never released");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static Quote twinQuote(QuoteTools tools) {
		try {
			return tools.twinQuote("Henderson", false);
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void aLateSuccessOverAReconciledFailureIsReplayedByAnotherInstanceThatHadReadTheFailure() throws Exception {
		QuoteTools.impatientRelease = new java.util.concurrent.CountDownLatch(1);
		ExecutorService first = Executors.newSingleThreadExecutor();
		try (AnnotationConfigApplicationContext otherInstance = new AnnotationConfigApplicationContext()) {
			otherInstance.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource()));
			otherInstance.registerBean(ReplayCache.class, () -> new ReplayCache(100, Duration.ofMinutes(10)));
			otherInstance.register(Tools.class);
			otherInstance.refresh();
			QuoteTools other = otherInstance.getBean(QuoteTools.class);
			IdempotencyKey key = IdempotencyKeys.derive("impatient_quote", Map.of("accountName", "Henderson"), "late");
			Future<Quote> running = first.submit(() -> inRun("late", "rep-1", () -> impatientQuote(this.tools)));
			await().atMost(Duration.ofSeconds(30)).until(() -> this.ledger.find(key).isPresent());
			// This instance beats for no call here, so a reconciler takes the running call for dead; no quote yet.
			await().until(reconciler(10)::reconcile, (pass) -> pass.failed() == 1);
			assertThatExceptionOfType(PreviousAttemptFailedException.class).as("the other instance reads the failure")
				.isThrownBy(() -> inRun("late", "rep-1", () -> impatientQuote(other)));

			QuoteTools.impatientRelease.countDown();
			Quote quote = running.get(30, java.util.concurrent.TimeUnit.SECONDS);

			assertThat(this.ledger.lateSuccesses()).isEqualTo(1);
			assertThat(inRun("late", "rep-1", () -> impatientQuote(other))).as("the other instance's next repeat")
				.isEqualTo(quote);
			assertThat(this.tools.quotes()).isEqualTo(1);
		}
		finally {
			QuoteTools.impatientRelease.countDown();
			first.shutdownNow();
		}
	}

	private static Quote impatientQuote(QuoteTools tools) {
		try {
			return tools.impatientQuote("Henderson");
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void aCallThatLosesALockWaitTimeoutToASlowTransactionalCallIsToldItIsInProgress() throws Exception {
		ExecutorService winnerThread = Executors.newSingleThreadExecutor();
		QuoteTools.slowNoteWritten = new java.util.concurrent.CountDownLatch(1);
		QuoteTools.slowNoteRelease = new java.util.concurrent.CountDownLatch(1);
		try (com.zaxxer.hikari.HikariDataSource pool = shortLockWaitPool();
				AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.registerBean(DataSource.class, () -> new DelegatingDataSource(pool));
			context.register(Tools.class);
			context.refresh();
			QuoteTools slow = context.getBean(QuoteTools.class);
			Future<Quote> winner = winnerThread.submit(() -> inRun("slow-run", "rep-1", () -> {
				try {
					return slow.slowNote("Henderson");
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}));
			assertThat(QuoteTools.slowNoteWritten.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

			assertThatExceptionOfType(ToolCallInProgressException.class).as("the winner did the action")
				.isThrownBy(() -> inRun("slow-run", "rep-1", () -> {
					try {
						return slow.slowNote("Henderson");
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}));

			QuoteTools.slowNoteRelease.countDown();
			assertThat(winner.get(30, java.util.concurrent.TimeUnit.SECONDS).accountName()).isEqualTo("Henderson");
			assertThat(this.tools.quotes()).isEqualTo(1);
		}
		finally {
			QuoteTools.slowNoteRelease.countDown();
			winnerThread.shutdownNow();
		}
	}

	/**
	 * A pool of four connections to the suite's database whose lock waits time out within about a second: each
	 * new connection runs {@link DatabaseFacts#shortLockWaitSql()}.
	 */
	com.zaxxer.hikari.HikariDataSource shortLockWaitPool() {
		com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
		config.setDataSource(dataSource());
		config.setConnectionInitSql(facts().shortLockWaitSql());
		config.setMaximumPoolSize(4);
		config.setPoolName("short-lock-waits");
		return new com.zaxxer.hikari.HikariDataSource(config);
	}

	/** Every answer of {@code threads} identical calls at once, in {@code rounds} runs: a result or what was thrown. */
	private List<Object> concurrently(int threads, int rounds, java.util.function.Function<String, Object> call)
			throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		List<Object> results = new ArrayList<>();
		try {
			for (int round = 0; round < rounds; round++) {
				String runId = "round-" + round;
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<Object>> answers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					answers.add(pool.submit((Callable<Object>) () -> {
						start.await();
						try {
							return inRun(runId, "rep-1", () -> call.apply(runId));
						}
						catch (RuntimeException ex) {
							return ex;
						}
					}));
				}
				for (Future<Object> answer : answers) {
					results.add(answer.get());
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
		return results;
	}

	@Test
	void aTransactionalToolInsideACallersTransactionAboveReadCommittedIsRefusedBeforeItRuns() {
		TransactionTemplate repeatableRead = new TransactionTemplate(
				this.context.getBean(PlatformTransactionManager.class));
		repeatableRead.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);

		assertThatIllegalStateException()
			.isThrownBy(() -> repeatableRead.executeWithoutResult(
					(status) -> inRun("r1", "rep-1", () -> this.tools.recordNote("Henderson", false))))
			.withMessageContaining("Tool 'record_note' is transactional")
			.withMessageContaining("READ COMMITTED");
		assertThat(this.tools.quotes()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();
	}

	@Test
	void concurrentCallsInsideSerializableCallersTransactionsAreEachRefusedBeforeAnythingRunsOrConflicts()
			throws Exception {
		TransactionTemplate serializable = new TransactionTemplate(this.context.getBean(PlatformTransactionManager.class));
		serializable.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);

		List<Object> answers = concurrently(8, 10,
				(runId) -> serializable.execute((status) -> this.tools.recordNote("Henderson", false)));

		assertThat(answers).hasSize(80).allSatisfy((answer) -> assertThat(answer)
			.isInstanceOfSatisfying(IllegalStateException.class, (refused) -> assertThat(refused)
				.hasMessageContaining("transaction at SERIALIZABLE")
				.hasMessageContaining("Nothing was executed")));
		assertThat(this.tools.quotes()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();
	}

	@Test
	void aTransactionalToolJoinsACallersTransactionAtReadCommitted() {
		TransactionTemplate readCommitted = new TransactionTemplate(
				this.context.getBean(PlatformTransactionManager.class));
		readCommitted.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);

		Quote first = readCommitted.execute((status) -> inRun("r1", "rep-1", () -> this.tools.recordNote("Acme", false)));
		Quote again = readCommitted.execute((status) -> inRun("r1", "rep-1", () -> this.tools.recordNote("Acme", false)));

		assertThat(again).isEqualTo(first);
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	@Test
	void everyAnswerOfATransactionalToolThatExecutedNothingLeavesTheCallersTransactionToCommit() {
		Quote first = inRun("desk-run", "rep-1", () -> this.tools.recordNote("Henderson", false));
		inRun("desk-run", "rep-1", () -> this.tools.recordStrictNote("Henderson", "seal failure"));
		this.ledger.recordFailed(recordNoteRowOf("desk-run", "Failed"), "account closed");
		recordNoteRowOf("desk-run", "Running");
		this.ledger.recordSucceededWithoutResult(recordNoteRowOf("desk-run", "Unstored"), "too large");
		SoftAssertions answers = new SoftAssertions();

		answers.assertThat(answeredInAndOutOfCallersTransaction("replayed",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordNote("Henderson", false)))).isEqualTo(first);
		answers.assertThat(answeredInAndOutOfCallersTransaction("different-details",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordStrictNote("Henderson", "the seal failed"))))
			.isInstanceOf(DifferentDetailsException.class);
		answers.assertThat(answeredInAndOutOfCallersTransaction("another-user",
				() -> inRun("desk-run", "rep-2", () -> this.tools.recordNote("Henderson", false))))
			.isInstanceOf(IdempotencyConflictException.class);
		answers.assertThat(answeredInAndOutOfCallersTransaction("previous-failure",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordNote("Failed", false))))
			.isInstanceOf(PreviousAttemptFailedException.class);
		answers.assertThat(answeredInAndOutOfCallersTransaction("in-progress",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordNote("Running", false))))
			.isInstanceOf(ToolCallInProgressException.class);
		answers.assertThat(answeredInAndOutOfCallersTransaction("without-result",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordNote("Unstored", false))))
			.isInstanceOf(ResultNotStoredException.class);
		answers.assertThat(answeredInAndOutOfCallersTransaction("without-run",
				() -> this.tools.recordNote("Henderson", false)))
			.isInstanceOf(MissingRunException.class);
		answers.assertThat(answeredInAndOutOfCallersTransaction("invalid-arguments",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordNote("Hen\u0000derson", false))))
			.isInstanceOf(InvalidArgumentsException.class);
		answers.assertThat(this.jdbc.queryForList("SELECT reference FROM quotes WHERE sku = 'DESK'", String.class))
			.as("the caller's own rows, each committed after the answer")
			.containsExactlyInAnyOrder("replayed", "different-details", "another-user", "previous-failure",
					"in-progress", "without-result", "without-run", "invalid-arguments");
		answers.assertAll();

		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM quotes WHERE sku <> 'DESK'", Integer.class))
			.as("nothing executed again").isEqualTo(2);
	}

	@Test
	void aFailureOfATransactionalToolsBodyStillRollsTheCallersTransactionBack() {
		OrderDesk desk = this.context.getBean(OrderDesk.class);

		assertThatExceptionOfType(UnexpectedRollbackException.class).isThrownBy(() -> desk.writeThenCall("failed",
				() -> inRun("desk-run", "rep-1", () -> this.tools.recordNote("Henderson", true))));

		assertThat(desk.wrote("failed")).isFalse();
		assertThat(this.tools.quotes()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();
	}

	/** A committed row of record_note that its call did not write: left attempting, for the test to settle. */
	private Claim.Won recordNoteRowOf(String runId, String accountName) {
		String arguments = "{\"accountName\":\"" + accountName + "\",\"fail\":false}";
		IdempotencyKey key = IdempotencyKeys.derive("record_note", arguments, runId);
		return (Claim.Won) this.ledger.claim(new ClaimRequest(key, runId, "rep-1", "record_note", arguments));
	}

	/**
	 * What a call answers (returned or thrown) inside an application's transaction that wrote a row of its own
	 * before it, the same as made on its own; a commit that failed, if it did.
	 */
	private Object answeredInAndOutOfCallersTransaction(String reference, java.util.function.Supplier<?> call) {
		Object alone;
		try {
			alone = call.get();
		}
		catch (RuntimeException answer) {
			alone = answer;
		}
		Object inside;
		try {
			inside = this.context.getBean(OrderDesk.class).writeThenCall(reference, call);
		}
		catch (UnexpectedRollbackException ex) {
			return ex;
		}
		assertThat(inside.getClass()).isEqualTo(alone.getClass());
		return inside;
	}

	@Test
	void theClaimStaysOutsideTheToolsOwnTransaction() {
		assertThatThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.quoteInTransaction("Henderson", true)))
			.isInstanceOf(IllegalArgumentException.class);

		assertThat(this.tools.quotes()).as("the tool's transaction rolled back").isZero();
		var key = IdempotencyKeys.derive("quote_in_transaction", "{\"accountName\":\"Henderson\",\"fail\":true}", "r1");
		assertThat(this.ledger.find(key).orElseThrow().status()).as("the claim and outcome survived it")
			.isEqualTo(LedgerStatus.FAILED);
	}

	@Test
	void losingTheLedgerAfterTheEffectNeverLeadsToASecondExecution() {
		Quote quote = inRun("r1", "rep-1", () -> this.tools.outageQuote("Henderson", LEDGER_TABLE));
		this.jdbc.execute("ALTER TABLE " + LEDGER_TABLE + "_away RENAME TO " + LEDGER_TABLE);

		IdempotencyKey key = IdempotencyKeys.derive("outage_quote",
				"{\"accountName\":\"Henderson\",\"ledgerTable\":\"" + LEDGER_TABLE + "\"}", "r1");
		assertThat(this.ledger.find(key).orElseThrow().status()).as("the fact that it may have happened is kept")
			.isEqualTo(LedgerStatus.ATTEMPTING);
		assertThatExceptionOfType(ToolCallInProgressException.class)
			.isThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.outageQuote("Henderson", LEDGER_TABLE)));

		await().until(reconciler(10)::reconcile, (pass) -> pass.succeeded() == 1);
		assertThat(inRun("r1", "rep-1", () -> this.tools.outageQuote("Henderson", LEDGER_TABLE))).isEqualTo(quote);
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	// The reconciler

	/** A call whose JVM died after the claim: the row stays attempting and nobody records its outcome. */
	IdempotencyKey crashedDraft(String runId, String accountName, boolean tookEffect) {
		String arguments = "{\"accountName\":\"" + accountName + "\",\"quantity\":200,\"sku\":\"SKU-4411\"}";
		IdempotencyKey key = IdempotencyKeys.derive("draft_quote", arguments, runId);
		this.ledger.claim(new ClaimRequest(key, runId, "rep-1", "draft_quote", arguments));
		if (tookEffect) {
			this.jdbc.update("INSERT INTO quotes (account_name, sku, quantity, reference) VALUES (?, 'SKU-4411', 200, ?)",
					accountName, key.externalReference("q"));
		}
		return key;
	}

	Reconciler reconciler(int maxAttempts) {
		return new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class), new JsonMapper(),
				new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMillis(1),
						Duration.ofMillis(1), maxAttempts));
	}

	@Test
	void aCallLeftAttemptingByACrashIsReconciledBothWays() {
		IdempotencyKey happened = crashedDraft("r1", "Henderson", true);
		IdempotencyKey didNot = crashedDraft("r1", "Acme", false);
		Reconciler reconciler = reconciler(10);

		Reconciler.Pass pass = await().until(reconciler::reconcile, (p) -> p.resolved() > 0);

		assertThat(pass.succeeded()).isEqualTo(1);
		assertThat(pass.failed()).isEqualTo(1);
		assertThat(this.ledger.find(happened).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(this.ledger.find(didNot).orElseThrow().status()).isEqualTo(LedgerStatus.FAILED);
		Quote replayed = inRun("r1", "rep-1", () -> this.tools.draftQuote("Henderson", "SKU-4411", 200));
		assertThat(replayed.reference()).isEqualTo(happened.externalReference("q"));
		assertThatExceptionOfType(PreviousAttemptFailedException.class)
			.isThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.draftQuote("Acme", "SKU-4411", 200)));
		assertThat(this.tools.quotes()).isEqualTo(1);
	}

	@Test
	void aReconcileMethodThatFailsIsRetriedThenHandedToAHuman() {
		IdempotencyKey key = IdempotencyKeys.derive("unreconcilable", "{\"accountName\":\"Henderson\"}", "r1");
		this.ledger.claim(new ClaimRequest(key, "r1", "rep-1", "unreconcilable", "{\"accountName\":\"Henderson\"}"));
		Reconciler reconciler = reconciler(2);

		assertThat(await().until(reconciler::reconcile, (p) -> p.postponed() > 0).postponed()).isEqualTo(1);
		assertThat(await().until(reconciler::reconcile, (p) -> p.awaitingHuman() > 0).awaitingHuman()).isEqualTo(1);

		assertThat(reconciler.awaitingHuman()).isEqualTo(1);
		LedgerEntry entry = this.ledger.find(key).orElseThrow();
		assertThat(entry.status()).isEqualTo(LedgerStatus.ATTEMPTING);
		assertThat(entry.reconcileAttempts()).isEqualTo(2);
		assertThat(reconciler.reconcile().resolved()).as("left alone for the human").isZero();
	}

	@Test
	void aToolWithALongerThresholdIsNotReconciledWhileItMayStillRun() {
		crashedDraft("r1", "Henderson", true);
		int before = this.tools.reconciliations();
		Reconciler patient = new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class),
				new JsonMapper(), new ReconcilerSettings(Duration.ofMillis(1), Map.of("draft_quote", Duration.ofHours(1)),
						100, Duration.ofMinutes(5), Duration.ofMillis(1), Duration.ofMillis(1), 10));

		assertThat(patient.reconcile().resolved()).isZero();
		assertThat(this.tools.reconciliations() - before).isZero();
	}

	@Test
	void twoReconcilersAtOnceNeverResolveARowTwice() throws Exception {
		int rows = 40;
		for (int i = 0; i < rows; i++) {
			crashedDraft("r" + i, "Henderson", i % 2 == 0);
		}
		int before = this.tools.reconciliations();
		Reconciler first = reconciler(10);
		Reconciler second = reconciler(10);
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			CyclicBarrier start = new CyclicBarrier(2);
			Callable<Integer> drain = () -> {
				start.await();
				int resolved = 0;
				for (int pass = 0; pass < 1000 && unsettled() > 0; pass++) {
					resolved += ((pass % 2 == 0) ? first : second).reconcile().resolved();
				}
				return resolved;
			};
			Future<Integer> a = pool.submit(drain);
			Future<Integer> b = pool.submit(drain);
			assertThat(a.get() + b.get()).isEqualTo(rows);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.tools.reconciliations() - before).isEqualTo(rows);
		assertThat(unsettled()).isZero();
	}

	// Fail closed: what the reconciler sees, what reaches storage

	private Reconciler reconcilerWith(JsonMapper applicationMapper, int maxAttempts) {
		return new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class), applicationMapper,
				new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMillis(1),
						Duration.ofMillis(1), maxAttempts));
	}

	@Test
	void theReconcileMethodReceivesWhatTheToolReceivedWhateverTheApplicationsJsonSettings() {
		QuoteTools.Ticket ticket = new QuoteTools.Ticket("Henderson Industrial", "Pump noise\n");
		assertThatExceptionOfType(SocketTimeoutException.class)
			.isThrownBy(() -> RunContext.call(new Run("r1", "rep-1"), () -> this.tools.openTicket(ticket)));
		JsonMapper snakeCase = JsonMapper.builder()
			.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
			.build();

		Reconciler.Pass pass = await().until(reconcilerWith(snakeCase, 10)::reconcile, (p) -> p.resolved() > 0);

		assertThat(pass.succeeded()).isEqualTo(1);
		LedgerEntry row = this.jdbc.query("SELECT idempotency_key FROM " + LEDGER_TABLE + " WHERE tool = 'open_ticket'",
				(r, n) -> this.ledger.find(new IdempotencyKey(r.getString(1))).orElseThrow()).get(0);
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).contains("T-Pump noise");
	}

	@Test
	void theReconcileMethodReceivesDecimalsAndLongIntegersExactly() {
		java.math.BigDecimal amount = new java.math.BigDecimal("0.123456789012345678");
		long units = 9007199254740993L;
		assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(
				() -> RunContext.call(new Run("r1", "rep-1"), () -> this.tools.transfer("Henderson", amount, units)));

		Reconciler.Pass pass = await().until(reconciler(10)::reconcile, (p) -> p.resolved() > 0);

		assertThat(pass.succeeded()).as("the transfer was found by its exact amount").isEqualTo(1);
		LedgerEntry row = this.jdbc.query("SELECT idempotency_key FROM " + LEDGER_TABLE + " WHERE tool = 'transfer'",
				(r, n) -> this.ledger.find(new IdempotencyKey(r.getString(1))).orElseThrow()).get(0);
		assertThat(row.result()).contains("Henderson:0.123456789012345678:9007199254740993");
		assertThat(IdempotencyKeys.argumentsMapper().readTree("{\"amount\":0.123456789012345678}").get("amount")
			.decimalValue()).isEqualTo(amount);
	}

	@Test
	void anErrorFromOneReconcileMethodStaysWithItsRowAndThePassGoesOn() {
		IdempotencyKey broken = IdempotencyKeys.derive("broken_reconcile", "{\"accountName\":\"Acme\"}", "r1");
		this.ledger.claim(new ClaimRequest(broken, "r1", "rep-1", "broken_reconcile", "{\"accountName\":\"Acme\"}"));
		IdempotencyKey draft = crashedDraft("r1", "Henderson", true);

		Reconciler reconciler = reconciler(1);
		Reconciler.Pass pass = await().until(reconciler::reconcile, (p) -> p.resolved() + p.awaitingHuman() > 0);

		assertThat(pass.resolved()).isEqualTo(1);
		assertThat(pass.awaitingHuman()).isEqualTo(1);
		assertThat(this.ledger.find(draft).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(this.ledger.find(broken).orElseThrow().reconcileAttempts()).isEqualTo(1);
		assertThat(reconciler.awaitingHuman()).isEqualTo(1);
	}

	@Test
	void aReconcilerLeavesTheRowsOfToolsItDoesNotHave() {
		IdempotencyKey elsewhere = IdempotencyKeys.derive("tool_of_another_service", "{}", "r1");
		this.ledger.claim(new ClaimRequest(elsewhere, "r1", "rep-1", "tool_of_another_service", "{}"));
		IdempotencyKey draft = crashedDraft("r1", "Henderson", true);
		Reconciler reconciler = reconciler(10);

		await().until(reconciler::reconcile, (p) -> p.resolved() > 0);
		reconciler.reconcile();

		assertThat(this.ledger.find(draft).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		LedgerEntry untouched = this.ledger.find(elsewhere).orElseThrow();
		assertThat(untouched.status()).isEqualTo(LedgerStatus.ATTEMPTING);
		assertThat(untouched.reconcileAttempts()).isZero();
		assertThat(untouched.reconcileOwner()).isNull();
	}

	@Test
	void aSecretQuotedInAnExceptionMessageNeverReachesTheErrorColumn() {
		String apiKey = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.charge("Henderson", apiKey)));

		String error = this.jdbc.queryForObject("SELECT error FROM " + LEDGER_TABLE + " WHERE tool = 'charge'",
				String.class);
		assertThat(error).doesNotContain(apiKey).contains("api_key=[REDACTED]").contains("was refused");
		assertThat(this.jdbc.queryForObject("SELECT arguments FROM " + LEDGER_TABLE + " WHERE tool = 'charge'",
				String.class)).doesNotContain(apiKey);
	}

	@Test
	void aResultThatCannotBeStoredIsNeverReplayedAsNull() {
		int before = this.tools.receipts();
		inRun("r1", "rep-1", () -> this.tools.issueReceipt("Henderson"));

		assertThatExceptionOfType(ResultNotStoredException.class)
			.isThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.issueReceipt("Henderson")))
			.withMessageContaining("Nothing was done again");
		assertThat(this.tools.receipts() - before).isEqualTo(1);
		LedgerEntry row = this.jdbc.query("SELECT idempotency_key FROM " + LEDGER_TABLE + " WHERE tool = 'issue_receipt'",
				(r, n) -> this.ledger.find(new IdempotencyKey(r.getString(1))).orElseThrow()).get(0);
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(row.result()).isNull();
		assertThat(row.error()).startsWith("The result is not stored");
	}

	@Test
	void anEnvelopeWhoseResultCannotBeStoredIsReplayedAsDoneWithoutAResult() {
		int before = this.tools.receipts();
		inRun("r1", "rep-1", () -> this.tools.issueReceiptEnvelope("Henderson"));

		ToolResult<QuoteTools.Receipt> repeat = inRun("r1", "rep-1", () -> this.tools.issueReceiptEnvelope("Henderson"));

		assertThat(repeat.kind()).isEqualTo(Answer.REPLAYED_WITHOUT_RESULT);
		assertThat(repeat.replayed()).isTrue();
		assertThat(repeat.data()).isNull();
		assertThat(this.tools.receipts() - before).isEqualTo(1);
	}

	@Test
	void aStringWithU0000IsRefusedBeforeAnythingIsClaimedOrExecuted() {
		assertThatExceptionOfType(io.idempotency.key.InvalidArgumentsException.class)
			.isThrownBy(() -> inRun("r1", "rep-1", () -> this.tools.draftQuote("Hender\u0000son", "SKU-4411", 200)))
			.satisfies((ex) -> assertThat(ex.path()).isEqualTo("accountName"));

		assertThat(this.tools.quotes()).isZero();
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();
	}

	@Test
	void aBlankUserInTheToolContextIsNoUser() {
		ToolContext context = new ToolContext(Map.of("runId", "ctx-run", "userId", " "));
		this.tools.quoteWithContext("Henderson", context);
		this.tools.quoteWithContext("Henderson", context);

		assertThat(this.tools.quotes()).isEqualTo(1);
		var key = IdempotencyKeys.derive("quote_with_context", "{\"accountName\":\"Henderson\"}", "ctx-run");
		assertThat(this.ledger.find(key).orElseThrow().userId()).isNull();
	}

	/** A function whose body completes later: a payment provider's answer, sent on its own thread. */
	private final IdempotentFunction<String> sendInvoice = IdempotentFunction.builder("send_invoice", String.class)
		.reconcile((key, arguments) -> Reconciliation.notFound())
		.build();

	private CompletionStage<String> sendInvoice(Run run, String invoice, Supplier<CompletionStage<String>> body,
			Executor recording) {
		IdempotentCalls calls = this.context.getBean(IdempotentCalls.class);
		calls.register(this.sendInvoice);
		return RunContext.supply(run, () -> calls.callAsync(this.sendInvoice, Map.of("invoice", invoice), body, recording));
	}

	private String send(String invoice) {
		this.jdbc.update("INSERT INTO sent_invoices (invoice) VALUES (?)", invoice);
		return "sent " + invoice;
	}

	private int sent(String invoice) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM sent_invoices WHERE invoice = ?", Integer.class, invoice);
	}

	/** The status of the one call of send_invoice in the run. */
	private String statusIn(Run run) {
		return this.jdbc.queryForObject("SELECT status FROM " + LEDGER_TABLE + " WHERE tool = 'send_invoice' AND run_id = ?",
				String.class, run.runId());
	}

	/**
	 * Two threads claim, run the bodies and record the outcomes of twenty calls (ten invoices, each twice):
	 * no call holds a thread while its body runs, so that all complete, and each invoice is sent once.
	 */
	@Test
	void asynchronousCallsOnAPoolThatAlsoRunsTheirBodiesAllCompleteAndEachInvoiceIsSentOnce() throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 5; round++) {
				Run run = new Run("async-pool-" + round, "rep-1");
				int invoices = 10;
				List<CompletableFuture<String>> answers = new ArrayList<>();
				for (int i = 0; i < 2 * invoices; i++) {
					String invoice = "INV-" + round + "-" + (i % invoices);
					CompletableFuture<String> answer = new CompletableFuture<>();
					pool.execute(() -> sendInvoice(run, invoice,
							() -> CompletableFuture.supplyAsync(() -> send(invoice), pool), pool)
						.whenComplete((result, failure) -> {
							if (failure != null) {
								answer.completeExceptionally(failure);
							}
							else {
								answer.complete(result);
							}
						}));
					answers.add(answer);
				}
				for (int i = 0; i < answers.size(); i++) {
					String invoice = "INV-" + round + "-" + (i % invoices);
					try {
						assertThat(answers.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("sent " + invoice);
					}
					catch (ExecutionException ex) {
						assertThat(ex.getCause()).as("round %d", round).isInstanceOf(ToolCallInProgressException.class);
					}
				}
				for (int i = 0; i < invoices; i++) {
					assertThat(sent("INV-" + round + "-" + i)).as("round %d, invoice %d", round, i).isEqualTo(1);
				}
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void anAsynchronousCallWhoseCallerCancelsRunsToItsOutcomeWhichARepeatReadsWithoutRunning() {
		Run run = new Run("async-cancel", "rep-1");
		CompletableFuture<String> provider = new CompletableFuture<>();
		CompletionStage<String> call = sendInvoice(run, "INV-C", () -> provider, Runnable::run);
		assertThat(statusIn(run)).isEqualTo("attempting");

		call.toCompletableFuture().cancel(true);
		provider.complete(send("INV-C"));

		assertThat(statusIn(run)).isEqualTo("succeeded");
		String repeat = sendInvoice(run, "INV-C", () -> {
			throw new AssertionError("a repeat must not run");
		}, Runnable::run).toCompletableFuture().join();
		assertThat(repeat).isEqualTo("sent INV-C");
		assertThat(sent("INV-C")).isEqualTo(1);
	}

	/**
	 * A twin of a running asynchronous call that waits for its outcome holds no thread meanwhile: the call
	 * returns at once, the executor's one thread stays free, and the twin is answered from the result.
	 */
	@Test
	void aTwinOfARunningAsynchronousCallWaitsForItsOutcomeHoldingNoThread() throws Exception {
		IdempotentFunction<String> remind = IdempotentFunction.builder("send_reminder", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.waitForRunning(Duration.ofSeconds(20))
			.build();
		IdempotentCalls calls = this.context.getBean(IdempotentCalls.class);
		calls.register(remind);
		Run run = new Run("async-twin", "rep-1");
		ExecutorService one = Executors.newSingleThreadExecutor();
		try {
			CompletableFuture<String> provider = new CompletableFuture<>();
			RunContext.supply(run, () -> calls.callAsync(remind, Map.of("invoice", "INV-W"), () -> provider, one));
			CompletionStage<String> twin = RunContext.supply(run, () -> calls.callAsync(remind, Map.of("invoice", "INV-W"),
					() -> {
						throw new AssertionError("a twin must not run");
					}, one));

			assertThat(twin.toCompletableFuture()).isNotDone();
			assertThat(one.submit(() -> "free").get(30, TimeUnit.SECONDS)).isEqualTo("free");
			provider.complete(send("INV-W"));

			assertThat(twin.toCompletableFuture().get(30, TimeUnit.SECONDS)).isEqualTo("sent INV-W");
			assertThat(sent("INV-W")).isEqualTo(1);
		}
		finally {
			one.shutdownNow();
		}
	}

	@Test
	void aBodyWhoseStageIsCancelledMayHaveTakenEffectAndIsRecordedUnknown() {
		Run run = new Run("async-cancelled-body", "rep-1");
		CompletableFuture<String> provider = new CompletableFuture<>();
		CompletionStage<String> call = sendInvoice(run, "INV-U", () -> provider, Runnable::run);

		provider.cancel(true);

		assertThat(call.toCompletableFuture()).isCompletedExceptionally();
		assertThat(statusIn(run)).isEqualTo("unknown");
	}

	@Test
	void anAsynchronousBodysFailureIsRecordedAndARepeatIsToldThePreviousAttemptFailedWithoutRunning() {
		Run run = new Run("async-failure", "rep-1");
		CompletionStage<String> call = sendInvoice(run, "INV-F",
				() -> CompletableFuture.failedFuture(new IllegalArgumentException("invoice INV-F is void")), Runnable::run);

		assertThatThrownBy(() -> call.toCompletableFuture().join()).hasRootCauseInstanceOf(IllegalArgumentException.class);
		assertThat(statusIn(run)).isEqualTo("failed");
		CompletionStage<String> repeat = sendInvoice(run, "INV-F", () -> {
			throw new AssertionError("a repeat must not run");
		}, Runnable::run);
		assertThatThrownBy(() -> repeat.toCompletableFuture().join())
			.hasCauseInstanceOf(PreviousAttemptFailedException.class);
	}

	private int unsettled() {
		return this.jdbc.queryForObject(
				"SELECT COUNT(*) FROM " + LEDGER_TABLE + " WHERE status IN ('attempting', 'unknown')", Integer.class);
	}

	private static <X extends Throwable> X catchThrowable(Callable<?> call, Class<X> type) {
		try {
			call.call();
		}
		catch (Throwable ex) {
			assertThat(ex).isInstanceOf(type);
			return type.cast(ex);
		}
		throw new AssertionError("expected " + type.getName());
	}

	@SuppressWarnings("unused")
	private static void unused() throws IOException, ExecutionException {
	}

}
