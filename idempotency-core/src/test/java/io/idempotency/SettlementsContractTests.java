package io.idempotency;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import io.idempotency.RefundTools.Refund;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.Redaction;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import io.idempotency.reconcile.SettlementRefusedException;
import io.idempotency.reconcile.SettlementRefusedException.Reason;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Settlement by hand of the calls the reconciler hands to a human, through real tools, the real advice, a real
 * reconciler and a real ledger. A subclass names the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SettlementsContractTests {

	static final String LEDGER_TABLE = "tool_audit_settle_test";

	/** After this many attempts the reconciler hands a call to a human. */
	static final int MAX_ATTEMPTS = 2;

	private static final JsonMapper mapper = new JsonMapper();

	private AnnotationConfigApplicationContext context;

	RefundTools tools;

	JdbcLedger ledger;

	JdbcTemplate jdbc;

	Reconciler reconciler;

	Settlements settlements;

	abstract DataSource dataSource();

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Tools {

		@Bean
		JdbcLedger ledger(DataSource dataSource) {
			return new JdbcLedger(dataSource, LEDGER_TABLE, Redaction.defaults());
		}

		@Bean
		RefundTools refundTools() {
			return new RefundTools();
		}

	}

	@BeforeEach
	void start() {
		if (this.context == null) {
			DataSource dataSource = dataSource();
			LedgerSchema.drop(dataSource, LEDGER_TABLE);
			LedgerSchema.create(dataSource, LEDGER_TABLE);
			this.jdbc = new JdbcTemplate(dataSource);
			this.context = new AnnotationConfigApplicationContext();
			// Shared for the whole test run: the context must not close it.
			this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
			this.context.register(Tools.class);
			this.context.refresh();
			this.tools = this.context.getBean(RefundTools.class);
			this.ledger = this.context.getBean(JdbcLedger.class);
			IdempotentToolRegistry registry = this.context.getBean(IdempotentToolRegistry.class);
			this.reconciler = new Reconciler(this.ledger, registry, mapper, settings(MAX_ATTEMPTS));
			this.settlements = new Settlements(this.ledger, registry, mapper, settings(MAX_ATTEMPTS));
		}
		this.jdbc.update("DELETE FROM " + LEDGER_TABLE);
		this.tools.timingOut(false);
		this.tools.bankDown(true);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
			LedgerSchema.drop(dataSource(), LEDGER_TABLE);
		}
	}

	static ReconcilerSettings settings(int maxAttempts) {
		return new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMillis(1),
				Duration.ofMillis(1), maxAttempts);
	}

	/** A refund that timed out, for the reconciler. */
	IdempotencyKey timedOutRefund(String run, String accountName, int cents) {
		this.tools.timingOut(true);
		try {
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(
					() -> RunContext.call(new Run(run, "rep-1"), () -> this.tools.bookRefund(accountName, cents)));
		}
		finally {
			this.tools.timingOut(false);
		}
		return keyOf(run, "book_refund");
	}

	/** A notice that timed out, for the reconciler. */
	IdempotencyKey timedOutNotice(String run, String accountName) {
		this.tools.timingOut(true);
		try {
			assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(() -> RunContext.call(new Run(run, "rep-1"),
					() -> {
						this.tools.notifyCustomer(accountName);
						return null;
					}));
		}
		finally {
			this.tools.timingOut(false);
		}
		return keyOf(run, "notify_customer");
	}

	IdempotencyKey keyOf(String run, String tool) {
		return new IdempotencyKey(this.jdbc.queryForObject(
				"SELECT idempotency_key FROM " + LEDGER_TABLE + " WHERE run_id = ? AND tool = ?", String.class, run, tool));
	}

	/** Runs the reconciler until this many calls wait for a human. */
	void untilAwaitingHuman(int calls) {
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			this.reconciler.reconcile();
			return this.settlements.awaitingHuman(CallFilter.all().limit(1000)).calls().size() >= calls;
		});
	}

	IdempotencyKey refundAwaitingHuman(String run, String accountName, int cents) {
		IdempotencyKey key = timedOutRefund(run, accountName, cents);
		untilAwaitingHuman(1);
		return key;
	}

	static <T> T inRun(String run, java.util.concurrent.Callable<T> body) throws Exception {
		return RunContext.call(new Run(run, "rep-1"), body);
	}

	// Listing

	@Test
	void theCallsAwaitingAHumanAreListedWithWhatAnOperatorNeeds() {
		IdempotencyKey refund = timedOutRefund("r1", "Henderson Industrial", 1250);
		IdempotencyKey notice = timedOutNotice("r2", "Henderson Industrial");
		untilAwaitingHuman(2);
		IdempotencyKey fresh = timedOutRefund("r3", "Acme", 10);

		Settlements.Page page = this.settlements.awaitingHuman(CallFilter.all());

		assertThat(page.calls()).extracting((call) -> call.entry().key()).containsExactly(refund, notice);
		assertThat(page.hasMore()).isFalse();
		CallRecord first = page.calls().get(0);
		LedgerEntry stored = this.ledger.find(refund).orElseThrow();
		assertThat(first.entry().tool()).isEqualTo("book_refund");
		assertThat(first.entry().runId()).isEqualTo("r1");
		assertThat(first.entry().userId()).isEqualTo("rep-1");
		assertThat(first.entry().arguments()).isEqualTo(stored.arguments()).contains("Henderson Industrial");
		assertThat(first.entry().error()).contains("Read timed out");
		assertThat(first.entry().reconcileAttempts()).isEqualTo(MAX_ATTEMPTS);
		assertThat(first.entry().status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(first.age().isNegative()).isFalse();
		assertThat(first.leased()).isFalse();
		assertThat(first.settledBy()).isNull();
		assertThat(this.settlements.unsettled(CallFilter.all())).extracting(Settlements.Page::calls)
			.satisfies((calls) -> assertThat(calls).extracting((call) -> call.entry().key())
				.containsExactly(refund, notice, fresh));
	}

	@Test
	void theListIsFilteredByToolAndAgeAndPagedByAStableCursor() {
		List<IdempotencyKey> refunds = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			refunds.add(timedOutRefund("r" + i, "Account " + i, 100 + i));
		}
		timedOutNotice("n1", "Account 1");
		untilAwaitingHuman(6);

		assertThat(this.settlements.awaitingHuman(CallFilter.all().tool("notify_customer")).calls()).hasSize(1);
		assertThat(this.settlements.awaitingHuman(CallFilter.all().olderThan(Duration.ofHours(1))).calls()).isEmpty();
		assertThat(this.settlements.awaitingHuman(CallFilter.all().tool("no_such_tool")).calls()).isEmpty();

		List<IdempotencyKey> read = new ArrayList<>();
		CallFilter filter = CallFilter.all().tool("book_refund").limit(2);
		int pages = 0;
		while (filter != null) {
			Settlements.Page page = this.settlements.awaitingHuman(filter);
			page.calls().forEach((call) -> read.add(call.entry().key()));
			if (pages == 0) {
				// A call settled between pages moves no other call from its page.
				this.settlements.settleFailed(page.calls().get(0).entry().key(), "ops-anna", "no refund at the bank");
			}
			filter = page.next();
			pages++;
		}
		assertThat(read).containsExactlyElementsOf(refunds);
		assertThat(pages).isEqualTo(3);
	}

	// Each settlement

	@Test
	void aCallSettledSucceededIsReplayedWithTheResultStoredAsTheAdviceStoresIt() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);
		int executions = this.tools.executions();

		CallRecord settled = this.settlements.settleSucceeded(key,
				"{ \"reference\": \"RF-77\", \"cents\": 1250, \"accountName\": \"Henderson Industrial\" }", "ops-anna",
				"the bank's statement shows refund RF-77");

		Refund expected = new Refund("Henderson Industrial", 1250, "RF-77");
		assertThat(settled.entry().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(mapper.readTree(settled.entry().result())).isEqualTo(mapper.readTree(mapper.writeValueAsString(expected)));
		assertThat(settled.entry().error()).isNull();
		assertThat(settled.entry().finishedAt()).isNotNull();
		assertThat(settled.settledBy()).isEqualTo("ops-anna");
		assertThat(settled.settledAt()).isNotNull();
		assertThat(settled.settleReason()).isEqualTo("the bank's statement shows refund RF-77");
		Refund repeat = inRun("r1", () -> this.tools.bookRefund("Henderson Industrial", 1250));
		assertThat(repeat).isEqualTo(expected);
		assertThat(this.tools.executions()).isEqualTo(executions);
		assertThat(this.reconciler.reconcile().resolved()).isZero();
	}

	@Test
	void aCallSettledFailedIsAnsweredAsAPreviousFailureWithTheReason() {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);
		int executions = this.tools.executions();

		CallRecord settled = this.settlements.settleFailed(key, "ops-anna", "The bank has no such refund.");

		assertThat(settled.entry().status()).isEqualTo(LedgerStatus.FAILED);
		assertThat(settled.entry().result()).isNull();
		assertThat(settled.entry().error()).isEqualTo("The bank has no such refund.");
		assertThat(settled.settledBy()).isEqualTo("ops-anna");
		assertThatExceptionOfType(PreviousAttemptFailedException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.bookRefund("Henderson Industrial", 1250)))
			.satisfies((failed) -> assertThat(failed.error()).isEqualTo("The bank has no such refund."));
		assertThat(this.tools.executions()).isEqualTo(executions);
	}

	@Test
	void aCallOfAToolThatReturnsNothingIsSettledWithoutAResult() throws Exception {
		IdempotencyKey key = timedOutNotice("r1", "Henderson Industrial");
		untilAwaitingHuman(1);

		CallRecord settled = this.settlements.settleSucceeded(key, null, "ops-anna", "the customer got the mail");

		assertThat(settled.entry().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(settled.entry().result()).isNull();
		int executions = this.tools.executions();
		inRun("r1", () -> {
			this.tools.notifyCustomer("Henderson Industrial");
			return null;
		});
		assertThat(this.tools.executions()).isEqualTo(executions);
	}

	@Test
	void aCallSentBackIsTriedOnceMoreByTheReconcilerThenWaitsForAHumanAgain() throws Exception {
		IdempotencyKey stillDown = refundAwaitingHuman("r1", "Henderson Industrial", 1250);

		CallRecord sentBack = this.settlements.retry(stillDown, "ops-anna", "the bank says it is back");

		assertThat(sentBack.entry().status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(sentBack.settledBy()).isEqualTo("ops-anna");
		assertThat(sentBack.settleReason()).isEqualTo("the bank says it is back");
		assertThat(this.settlements.awaitingHuman(CallFilter.all()).calls()).isEmpty();
		assertThat(this.settlements.unsettled(CallFilter.all()).calls()).hasSize(1);
		assertThat(await().until(this.reconciler::reconcile, (pass) -> pass.awaitingHuman() > 0).awaitingHuman())
			.as("one more try, then a human again").isEqualTo(1);

		this.settlements.retry(stillDown, "ops-anna", "the bank is back for sure");
		this.tools.bankDown(false);
		assertThat(await().until(this.reconciler::reconcile, (pass) -> pass.resolved() > 0).succeeded()).isEqualTo(1);

		int executions = this.tools.executions();
		Refund repeat = inRun("r1", () -> this.tools.bookRefund("Henderson Industrial", 1250));
		assertThat(repeat.reference()).isEqualTo(stillDown.externalReference("rf"));
		assertThat(this.tools.executions()).isEqualTo(executions);
	}

	// Refusals: nothing written

	@Test
	void anUnknownKeyIsRefused() {
		IdempotencyKey unknown = new IdempotencyKey("0".repeat(64));

		assertThatExceptionOfType(SettlementRefusedException.class)
			.isThrownBy(() -> this.settlements.settleFailed(unknown, "ops-anna", "no such refund"))
			.satisfies((refused) -> assertThat(refused.reason()).isEqualTo(Reason.UNKNOWN_KEY))
			.withMessageContaining(unknown.value())
			.withMessageContaining("nothing was written");
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class)).isZero();
	}

	@Test
	void aSettledCallIsRefusedAndSaysWhoSettledIt() {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);
		this.settlements.settleFailed(key, "ops-anna", "no refund at the bank");

		refusedWithNothingWritten(key, Reason.ALREADY_SETTLED, () -> this.settlements.settleSucceeded(key,
				"{\"accountName\":\"Henderson Industrial\",\"cents\":1250,\"reference\":\"RF-1\"}", "ops-ben", "found it"))
			.withMessageContaining("already settled failed by ops-anna");
		refusedWithNothingWritten(key, Reason.ALREADY_SETTLED,
				() -> this.settlements.retry(key, "ops-ben", "try again"));
	}

	@Test
	void aSettledCallWhoseFinishTimeWasClearedByHandIsRefusedAsSettled() {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);
		this.settlements.settleFailed(key, "ops-anna", "no refund at the bank");
		this.jdbc.update("UPDATE " + LEDGER_TABLE + " SET finished_at = NULL WHERE idempotency_key = ?", key.value());

		refusedWithNothingWritten(key, Reason.ALREADY_SETTLED, () -> this.settlements.retry(key, "ops-ben", "try again"))
			.withMessageContaining("already settled failed by ops-anna");
	}

	@Test
	void aCallTheReconcilerHasNotHandedToAHumanIsRefused() {
		IdempotencyKey key = timedOutRefund("r1", "Henderson Industrial", 1250);

		refusedWithNothingWritten(key, Reason.NOT_AWAITING_HUMAN,
				() -> this.settlements.settleFailed(key, "ops-anna", "no refund"))
			.withMessageContaining("not waiting for a human");
	}

	@Test
	void aCallStillAttemptingIsRefused() {
		IdempotencyKey key = claimedNow("r1");

		refusedWithNothingWritten(key, Reason.NOT_AWAITING_HUMAN,
				() -> this.settlements.settleFailed(key, "ops-anna", "no refund"))
			.withMessageContaining("attempting");
	}

	@Test
	void aCallAReconcilerHoldsAtThisMomentIsRefused() {
		IdempotencyKey key = awaitingAndLeasable("r1");
		LedgerEntry leased = this.ledger.leaseStaleOf(Set.of("book_refund"), Duration.ZERO, 10, Duration.ofMinutes(5))
			.get(0);

		Settlements eager = new Settlements(this.ledger, this.context.getBean(IdempotentToolRegistry.class), mapper,
				settings(1));
		refusedWithNothingWritten(key, Reason.BEING_RECONCILED, () -> eager.settleFailed(key, "ops-anna", "no refund"))
			.withMessageContaining("reconciler is working on the call");
		assertThat(this.ledger.postpone(leased, Duration.ZERO)).isTrue();
	}

	@Test
	void aSettlementWithoutWhoOrWhyIsRefused() {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);

		refusedWithNothingWritten(key, Reason.MISSING_REASON, () -> this.settlements.settleFailed(key, "ops-anna", " "));
		refusedWithNothingWritten(key, Reason.MISSING_REASON, () -> this.settlements.settleFailed(key, "ops-anna", null));
		refusedWithNothingWritten(key, Reason.MISSING_REASON, () -> this.settlements.retry(key, "", "the bank is back"));
		refusedWithNothingWritten(key, Reason.MISSING_REASON,
				() -> this.settlements.settleSucceeded(key, "{}", null, "found it"));
	}

	@Test
	void whoOrWhyTheLedgerDoesNotStoreIsRefusedNamingWhatAndWhere() {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);

		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.settleFailed(key, "ops-anna", "no refund\u0000 at the bank"))
			.withMessageContaining("the reason holds the control character U+0000 at position 10");
		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.retry(key, "ops\u0000anna", "the bank is back"))
			.withMessageContaining("the name of who settles the call holds the control character U+0000");
		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.settleFailed(key, "ops-anna\r\nops-ben", "no refund"))
			.withMessageContaining("U+000D");
		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.settleFailed(key, "ops-anna", "no refund \u001b[31m"))
			.withMessageContaining("U+001B");
		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.settleFailed(key, "ops-anna", "no refund \ud83d"))
			.withMessageContaining("U+D83D").withMessageContaining("half of a character");
		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.settleFailed(key, "o".repeat(256), "no charge at the bank"))
			.withMessageContaining("256 characters long; the ledger keeps at most 255");
		refusedWithNothingWritten(key, Reason.INVALID_REQUEST,
				() -> this.settlements.settleFailed(key, "ops-anna", "r".repeat(4001)))
			.withMessageContaining("the reason is 4001 characters long; the ledger keeps at most 4000");
		refusedWithNothingWritten(key, Reason.RESULT_REFUSED, () -> this.settlements.settleSucceeded(key,
				"{\"accountName\":\"Henderson\\u0000Industrial\",\"cents\":1250,\"reference\":\"RF-1\"}", "ops-anna",
				"found it"))
			.withMessageContaining("U+0000");

		String reason = "No refund at the bank \ud83c\udfe6.\n\tAsk the customer whether to book it again.";
		CallRecord settled = this.settlements.settleFailed(key, "o".repeat(255), reason);
		assertThat(settled.settleReason()).isEqualTo(reason);
		assertThat(settled.entry().error()).isEqualTo(reason);
		assertThat(settled.settledBy()).isEqualTo("o".repeat(255));
	}

	@Test
	void aListingReachesBackAtMostAHundredYearsWhichEveryDatabaseTakes() {
		refundAwaitingHuman("r1", "Henderson Industrial", 1250);

		assertThat(this.settlements.awaitingHuman(CallFilter.all().olderThan(CallFilter.MAX_OLDER_THAN)).calls())
			.isEmpty();
		assertThat(this.settlements.unsettled(CallFilter.all().olderThan(Duration.ofDays(36_525))).calls()).isEmpty();
		for (Duration tooFar : List.of(CallFilter.MAX_OLDER_THAN.plusSeconds(1), Duration.ofDays(3_000_000),
				Duration.ofDays(99_999_999_999L))) {
			assertThatIllegalArgumentException().isThrownBy(() -> CallFilter.all().olderThan(tooFar))
				.withMessageContaining("olderThan must be from zero to 36525 days");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> this.ledger.unsettled(null, tooFar, MAX_ATTEMPTS, 0, 10))
				.withMessageContaining("olderThan must be at most 36525 days");
		}
		assertThatIllegalArgumentException().isThrownBy(() -> CallFilter.all().tool("book_\u0000refund"))
			.withMessageContaining("tool").withMessageContaining("control character");
	}

	@Test
	void aResultOfAToolThisApplicationDoesNotHaveIsStoredWithItsNumbersAsWritten() throws Exception {
		IdempotencyKey key = awaitingHumanWithoutItsTool("r1");

		CallRecord settled = this.settlements.settleSucceeded(key,
				"{\"invoice\":\"INV-7\",\"amount\":0.123456789012345678,\"fee\":12.50,\"rate\":1.0E-7}", "ops-anna",
				"the invoice is paid");

		JsonNode stored = mapper.readerFor(JsonNode.class)
			.with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
			.readValue(this.ledger.find(key).orElseThrow().result());
		assertThat(stored.path("amount").decimalValue()).isEqualTo(new java.math.BigDecimal("0.123456789012345678"));
		assertThat(stored.path("fee").decimalValue()).isEqualTo(new java.math.BigDecimal("12.50"));
		assertThat(stored.path("rate").decimalValue()).isEqualByComparingTo("0.0000001");
		assertThat(settled.entry().result()).isEqualTo(this.ledger.find(key).orElseThrow().result());
	}

	/** A call of a tool this application does not have (another application's), waiting for a human. */
	IdempotencyKey awaitingHumanWithoutItsTool(String run) {
		String arguments = "{\"invoice\":\"INV-7\"}";
		IdempotencyKey key = io.idempotency.key.IdempotencyKeys.derive("pay_invoice", arguments, run);
		this.ledger.claim(new io.idempotency.ledger.ClaimRequest(key, run, "rep-1", "pay_invoice", arguments));
		this.jdbc.update("UPDATE " + LEDGER_TABLE + " SET status = 'unknown', reconcile_attempts = ? WHERE idempotency_key = ?",
				MAX_ATTEMPTS, key.value());
		return key;
	}

	@Test
	void aResultThatDoesNotBindToTheToolsResultTypeIsRefused() {
		IdempotencyKey key = refundAwaitingHuman("r1", "Henderson Industrial", 1250);

		refusedWithNothingWritten(key, Reason.RESULT_REFUSED, () -> this.settlements.settleSucceeded(key,
				"{\"accountName\":\"Henderson Industrial\",\"cents\":\"a lot\",\"reference\":\"RF-1\"}", "ops-anna",
				"found it"))
			.withMessageContaining("does not bind to the result type of tool")
			.withMessageContaining("the value at /cents, \"a lot\", is not a whole number")
			.withMessageNotContaining("io.idempotency");
		refusedWithNothingWritten(key, Reason.RESULT_REFUSED, () -> this.settlements.settleSucceeded(key,
				"{\"accountName\":\"Henderson Industrial\",\"cents\":1250,\"refrence\":\"RF-1\"}", "ops-anna", "found it"))
			.withMessageContaining("member 'refrence'")
			.withMessageContaining("the result type has no such member")
			.withMessageNotContaining("io.idempotency");
		refusedWithNothingWritten(key, Reason.RESULT_REFUSED,
				() -> this.settlements.settleSucceeded(key, "{\"accountName\":", "ops-anna", "found it"));
		refusedWithNothingWritten(key, Reason.RESULT_REFUSED,
				() -> this.settlements.settleSucceeded(key, "{} {}", "ops-anna", "found it"));
		refusedWithNothingWritten(key, Reason.RESULT_REFUSED, () -> this.settlements.settleSucceeded(key,
				"{\"accountName\":\"Henderson Industrial\",\"cents\":1250,\"reference\":\"RF-1\"} {}", "ops-anna",
				"found it"))
			.withMessageContaining("there is more after the value");
		refusedWithNothingWritten(key, Reason.RESULT_REFUSED,
				() -> this.settlements.settleSucceeded(key, null, "ops-anna", "found it"))
			.withMessageContaining("give the result");
	}

	@Test
	void aResultForAToolThatReturnsNothingIsRefused() {
		IdempotencyKey key = timedOutNotice("r1", "Henderson Industrial");
		untilAwaitingHuman(1);

		refusedWithNothingWritten(key, Reason.RESULT_REFUSED,
				() -> this.settlements.settleSucceeded(key, "\"sent\"", "ops-anna", "the customer got the mail"))
			.withMessageContaining("returns nothing");
	}

	@Test
	void aTableMadeBeforeTheSettlementColumnsServesCallsAndSaysWhatToRunToBeSettled() throws Exception {
		String table = "tool_audit_first_test";
		LedgerSchema.drop(dataSource(), table);
		String platform = LedgerSchema.platformOf(dataSource());
		String first = new org.springframework.core.io.ClassPathResource(
				"io/idempotency/ledger/migration/" + platform + "/V1_0_0_0_1__idempotency_ledger.sql")
			.getContentAsString(java.nio.charset.StandardCharsets.UTF_8)
			.replace("tool_audit", table);
		new org.springframework.jdbc.datasource.init.ResourceDatabasePopulator(
				new org.springframework.core.io.ByteArrayResource(first.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
			.execute(dataSource());
		try (JdbcLedger old = new JdbcLedger(dataSource(), table, Redaction.defaults())) {
			IdempotencyKey key = claimedNow(old, "r1");
			assertThat(old.find(key)).isPresent();
			Settlements settling = new Settlements(old, this.context.getBean(IdempotentToolRegistry.class), mapper,
					settings(MAX_ATTEMPTS));

			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> settling.awaitingHuman(CallFilter.all()))
				.withMessageContaining("[settled_by, settled_at, settle_reason]")
				.withMessageContaining("io/idempotency/ledger/migration/" + platform
						+ "/V1_0_0_0_2__idempotency_ledger_settlements.sql");
		}
		finally {
			LedgerSchema.drop(dataSource(), table);
		}
	}

	// Races

	@Test
	void ofOperatorsSettlingOneCallAtOnceExactlyOneWinsAndTheOthersAreToldItWasSettled() throws Exception {
		int threads = 8;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 15; round++) {
				IdempotencyKey key = refundAwaitingHuman("race-" + round, "Henderson Industrial", 1250);
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<String>> settling = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					String operator = "ops-" + t;
					int kind = t % 3;
					settling.add(pool.submit(() -> {
						start.await();
						try {
							switch (kind) {
								case 0 -> this.settlements.settleFailed(key, operator, "no refund at the bank");
								case 1 -> this.settlements.settleSucceeded(key,
										"{\"accountName\":\"Henderson Industrial\",\"cents\":1250,\"reference\":\"RF-1\"}",
										operator, "the bank shows RF-1");
								default -> this.settlements.retry(key, operator, "the bank is back");
							}
							return operator;
						}
						catch (SettlementRefusedException refused) {
							assertThat(refused.reason()).isIn(Reason.ALREADY_SETTLED, Reason.NOT_AWAITING_HUMAN);
							return null;
						}
					}));
				}
				List<String> winners = new ArrayList<>();
				for (Future<String> future : settling) {
					String winner = future.get();
					if (winner != null) {
						winners.add(winner);
					}
				}
				assertThat(winners).as("round %d", round).hasSize(1);
				assertThat(this.settlements.find(key).orElseThrow().settledBy()).isEqualTo(winners.get(0));
				this.jdbc.update("DELETE FROM " + LEDGER_TABLE);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aSettlementAndAReconcilerTakingTheSameCallAtOnceNeverBothHaveIt() throws Exception {
		Settlements eager = new Settlements(this.ledger, this.context.getBean(IdempotentToolRegistry.class), mapper,
				settings(1));
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 20; round++) {
				IdempotencyKey key = awaitingAndLeasable("race-" + round);
				CyclicBarrier start = new CyclicBarrier(2);
				Future<List<LedgerEntry>> lease = pool.submit(() -> {
					start.await();
					return this.ledger.leaseStaleOf(Set.of("book_refund"), Duration.ZERO, 10, Duration.ofMinutes(5));
				});
				Future<Boolean> settle = pool.submit(() -> {
					start.await();
					try {
						eager.settleFailed(key, "ops-anna", "no refund at the bank");
						return true;
					}
					catch (SettlementRefusedException refused) {
						assertThat(refused.reason()).isEqualTo(Reason.BEING_RECONCILED);
						return false;
					}
				});
				boolean settled = settle.get();
				List<LedgerEntry> leased = lease.get();
				assertThat(leased.size() + (settled ? 1 : 0)).as("round %d", round).isEqualTo(1);
				LedgerEntry row = this.ledger.find(key).orElseThrow();
				if (settled) {
					assertThat(row.status()).isEqualTo(LedgerStatus.FAILED);
				}
				else {
					assertThat(row.status()).isEqualTo(LedgerStatus.UNKNOWN);
					assertThat(this.ledger.resolveSucceeded(leased.get(0), "null")).isTrue();
				}
				this.jdbc.update("DELETE FROM " + LEDGER_TABLE);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * A refund the reconciler tried once and postponed for a moment: a settlement that hands calls to a human
	 * after one attempt may settle it, and a reconciler may take it again, both at once.
	 */
	IdempotencyKey awaitingAndLeasable(String run) {
		IdempotencyKey key = timedOutRefund(run, "Henderson Industrial", 1250);
		await().until(this.reconciler::reconcile, (pass) -> pass.postponed() > 0);
		// Its pause of a millisecond over, by the database clock, a reconciler may take it again.
		String now = LedgerSchema.platformOf(dataSource()).equals("mysql") ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
		await().until(() -> this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE
				+ " WHERE idempotency_key = ? AND reconcile_after < " + now, Integer.class, key.value()) == 1);
		return key;
	}

	IdempotencyKey claimedNow(String run) {
		return claimedNow(this.ledger, run);
	}

	static IdempotencyKey claimedNow(JdbcLedger ledger, String run) {
		String arguments = "{\"accountName\":\"Henderson Industrial\",\"cents\":1250}";
		IdempotencyKey key = io.idempotency.key.IdempotencyKeys.derive("book_refund", arguments, run);
		ledger.claim(new io.idempotency.ledger.ClaimRequest(key, run, "rep-1", "book_refund", arguments));
		return key;
	}

	/** The refusal, after checking that the call's row is as it was. */
	org.assertj.core.api.ThrowableAssertAlternative<SettlementRefusedException> refusedWithNothingWritten(
			IdempotencyKey key, Reason reason, org.assertj.core.api.ThrowableAssert.ThrowingCallable settlement) {
		List<String> before = row(key);
		var refused = assertThatExceptionOfType(SettlementRefusedException.class).isThrownBy(settlement)
			.satisfies((ex) -> assertThat(ex.reason()).isEqualTo(reason))
			.satisfies((ex) -> assertThat(ex.key()).isEqualTo(key))
			.withMessageContaining(key.value())
			.withMessageContaining("nothing was written");
		assertThat(row(key)).isEqualTo(before);
		return refused;
	}

	/** Every column of the row that a settlement writes, as text. */
	List<String> row(IdempotencyKey key) {
		return this.jdbc.query("SELECT status, result, error, reconcile_attempts, reconcile_owner, reconcile_after,"
				+ " finished_at, settled_by, settled_at, settle_reason FROM " + LEDGER_TABLE + " WHERE idempotency_key = ?",
				(row, n) -> {
					List<String> values = new ArrayList<>();
					for (int i = 1; i <= 10; i++) {
						values.add(row.getString(i));
					}
					return String.join("|", values);
				}, key.value());
	}

}
