package io.idempotency;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.HostileTools.Slot;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.key.InvalidArgumentsException;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.DatabaseFacts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Hostile input, through the real advice and a real ledger: each case is refused with an error that names
 * what was wrong, nothing is executed or written, and the application keeps working afterwards (checked
 * after every test by a valid call). A subclass names the database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HostileInputContractTests {

	static final String LEDGER_TABLE = "tool_audit_hostile_test";

	private AnnotationConfigApplicationContext context;

	private HostileTools tools;

	private JdbcLedger ledger;

	private JdbcTemplate jdbc;

	private int executionsBefore;

	abstract DataSource dataSource();

	/** What the tests need to know of the database this suite runs on. */
	abstract DatabaseFacts facts();

	@BeforeEach
	void start() {
		if (this.context == null) {
			DataSource dataSource = dataSource();
			this.jdbc = new JdbcTemplate(dataSource);
			this.context = ToolContexts.start(dataSource, LEDGER_TABLE, HostileTools.class, HostileTools::new);
			this.tools = this.context.getBean(HostileTools.class);
			this.ledger = this.context.getBean(JdbcLedger.class);
		}
		this.jdbc.update("DELETE FROM " + LEDGER_TABLE);
		this.executionsBefore = this.tools.executions();
	}

	/** After every case: a valid call still executes once and replays. */
	@AfterEach
	void theApplicationKeepsWorking() {
		String run = "after-" + System.nanoTime();
		int before = this.tools.executions();
		assertThat(inRun(run, () -> this.tools.storeText("fine"))).isEqualTo("stored");
		assertThat(inRun(run, () -> this.tools.storeText("fine"))).isEqualTo("stored");
		assertThat(this.tools.executions()).isEqualTo(before + 1);
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void aTenMegabyteStringIsRefusedByTheArgumentSizeLimit() {
		String huge = "x".repeat(10 * 1024 * 1024);
		assertRefused(() -> this.tools.storeText(huge), InvalidArgumentsException.class,
				"the arguments take 10485771 bytes as JSON, more than the 1048576 allowed");
	}

	@Test
	void aMillionElementArrayIsRefusedByTheArgumentSizeLimit() {
		List<Object> values = new ArrayList<>(Collections.nCopies(1_000_000, 7));
		assertRefused(() -> this.tools.storeValues(values), InvalidArgumentsException.class,
				"bytes as JSON, more than the 1048576 allowed");
	}

	@Test
	void argumentsJustUnderTheLimitAreAccepted() {
		// {"text":"..."} is 11 bytes around the string.
		String large = "x".repeat(1024 * 1024 - 11);
		assertThat(inRun("r1", () -> this.tools.storeText(large))).isEqualTo("stored");
		assertThat(rows()).isEqualTo(1);
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.storeText(large + "x")))
			.withMessageContaining("1048577 bytes as JSON");
		assertThat(rows()).isEqualTo(1);
	}

	@Test
	void deepNestingFromJavaObjectsIsRefusedWithItsPath() {
		Map<String, Object> tree = new HashMap<>();
		Map<String, Object> level = tree;
		for (int i = 0; i < 100; i++) {
			Map<String, Object> next = new HashMap<>();
			level.put("child", next);
			level = next;
		}
		assertRefused(() -> this.tools.storeTree(tree), InvalidArgumentsException.class,
				"is nested deeper than the 64 levels allowed");
	}

	@Test
	void deepNestingFromJsonTextIsRefused() {
		String json = "{\"tree\":" + "[".repeat(100) + "]".repeat(100) + "}";
		assertThatExceptionOfType(InvalidArgumentsException.class)
			.isThrownBy(() -> IdempotencyKeys.derive("store_tree", json, "r1"))
			.withMessageContaining("nested deeper than the 64 levels allowed");
	}

	@Test
	void aCyclicObjectGraphIsRefused() {
		Map<String, Object> tree = new HashMap<>();
		tree.put("self", tree);
		assertRefused(() -> this.tools.storeTree(tree), InvalidArgumentsException.class,
				"argument 'tree.self.self.self");
	}

	@Test
	void nanAndInfinitiesAreRefused() {
		assertRefused(() -> this.tools.storeAmount(Double.NaN), InvalidArgumentsException.class, "argument 'amount'");
		assertRefused(() -> this.tools.storeAmount(Double.POSITIVE_INFINITY), InvalidArgumentsException.class,
				"argument 'amount'");
		assertRefused(() -> this.tools.storeAmount(Double.NEGATIVE_INFINITY), InvalidArgumentsException.class,
				"argument 'amount'");
	}

	@Test
	void aLoneSurrogateIsRefused() {
		assertRefused(() -> this.tools.storeText("half \uD83D of an emoji"), InvalidArgumentsException.class,
				"argument 'text'");
	}

	@Test
	void theNullCharacterIsRefused() {
		assertRefused(() -> this.tools.storeText("nul \u0000 inside"), InvalidArgumentsException.class,
				"U+0000");
	}

	@Test
	void aResultWithABackslashBeforeTheLettersU0000IsStoredAndReplayed() {
		// A backslash, then "u0000": JSON writes it "\\u0000", which holds no U+0000.
		String path = "C:\\u0000\\reports";
		assertThat(inRun("r1", () -> this.tools.echoText(path))).isEqualTo(path);
		assertThat(inRun("r1", () -> this.tools.echoText(path))).as("replayed from the ledger").isEqualTo(path);
		assertThat(this.tools.executions()).isEqualTo(this.executionsBefore + 1);
		assertThat(this.jdbc.queryForObject("SELECT status FROM " + LEDGER_TABLE, String.class)).isEqualTo("succeeded");
	}

	@Test
	void aResultHoldingTheNullCharacterIsReturnedButNotStoredAndItsRepeatIsToldSo() {
		assertThat(inRun("r1", () -> this.tools.textWithNul("nul"))).isEqualTo("nul\u0000");
		assertThatExceptionOfType(ResultNotStoredException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.textWithNul("nul")));
		assertThat(this.tools.executions()).isEqualTo(this.executionsBefore + 1);
	}

	@Test
	void textsThatDifferOnlyByUnicodeNormalisationAreOneIntentWhileInvisibleCharactersMakeAnother() {
		inRun("r1", () -> this.tools.storeText("caf\u00e9"));
		inRun("r1", () -> this.tools.storeText("cafe\u0301"));
		assertThat(rows()).as("NFC: one call").isEqualTo(1);
		inRun("r1", () -> this.tools.storeText("caf\u200b\u00e9"));
		assertThat(rows()).as("a zero-width space is content: another call").isEqualTo(2);
	}

	@Test
	void blankRunIdsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Run(" ", "rep-1")).withMessageContaining("runId");
		assertThat(rows()).isZero();
	}

	@Test
	void anEnormousRunIdIsRefusedBeforeAnythingRuns() {
		String run = "r".repeat(10_000);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RunContext.supply(new Run(run, "rep-1"), () -> this.tools.storeText("a")))
			.withMessageContaining("runId is 10000 characters long; the ledger stores at most 255");
		assertNothingHappened();
	}

	@Test
	void runIdsAndUsersWithControlCharactersAreRefusedBeforeAnythingRuns() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RunContext.supply(new Run("r1\nreconcile.resolved forged", "rep-1"),
					() -> this.tools.storeText("a")))
			.withMessage("runId holds the control character U+000A at index 2; the ledger refuses them");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RunContext.supply(new Run("r1", "rep\u001b[31m"), () -> this.tools.storeText("a")))
			.withMessageContaining("userId holds the control character U+001B at index 3");
		assertNothingHappened();
	}

	@Test
	void aTableNameThatAttemptsSqlInjectionIsRefusedAndNothingIsCreated() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new JdbcLedger(dataSource(), "tool_audit; DROP TABLE " + LEDGER_TABLE + "; --",
					Redaction.defaults()))
			.withMessageContaining("table name");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LedgerSchema.create(dataSource(), "x (id INT); DROP TABLE " + LEDGER_TABLE))
			.withMessageContaining("table name");
		assertThat(rows()).isZero();
	}

	@Test
	void aStoredResultThatNoLongerReadsAsTheResultTypeIsReplayedAsDoneWithoutItsResult() {
		Slot slot = new Slot(7, "Ada");
		inRun("r1", () -> this.tools.bookSlot(slot));
		inRun("r1", () -> this.tools.bookSlotEnvelope(slot));
		// The result type changed since: the stored JSON no longer fits it.
		this.jdbc.update("UPDATE " + LEDGER_TABLE + " SET result = " + jsonParameter() + " WHERE status = 'succeeded'",
				"{\"number\": \"seven\", \"room\": [1]}");
		int executions = this.tools.executions();

		assertThatExceptionOfType(ResultNotStoredException.class)
			.isThrownBy(() -> inRun("r1", () -> this.tools.bookSlot(slot)))
			.withMessage(Answer.REPLAYED_WITHOUT_RESULT.message())
			.havingCause()
			.withMessageContaining("cannot be read back");
		ToolResult<Slot> envelope = inRun("r1", () -> this.tools.bookSlotEnvelope(slot));
		assertThat(envelope.kind()).isEqualTo(Answer.REPLAYED_WITHOUT_RESULT);
		assertThat(this.tools.executions()).isEqualTo(executions);
	}

	@Test
	void aStatusChangedByHandToSomethingUnknownIsRefusedByTheTable() {
		inRun("r1", () -> this.tools.storeText("a"));
		assertThatExceptionOfType(DataIntegrityViolationException.class)
			.isThrownBy(() -> this.jdbc.update("UPDATE " + LEDGER_TABLE + " SET status = 'done'"));
		assertThat(inRun("r1", () -> this.tools.storeText("a"))).isEqualTo("stored");
		assertThat(this.ledger.find(IdempotencyKeys.derive("store_text", "{\"text\":\"a\"}", "r1")).orElseThrow().status())
			.isEqualTo(LedgerStatus.SUCCEEDED);
	}

	@Test
	void aResultChangedByHandToInvalidJsonIsRefusedByTheTableOrReplayedWithoutIt() {
		Slot slot = new Slot(7, "Ada");
		inRun("r1", () -> this.tools.bookSlot(slot));
		int executions = this.tools.executions();
		String update = "UPDATE " + LEDGER_TABLE + " SET result = " + jsonParameter() + " WHERE status = 'succeeded'";
		if (facts().refusesInvalidJson()) {
			assertThatThrownBy(() -> this.jdbc.update(update, "{not json"))
				.isInstanceOf(DataAccessException.class);
			assertThat(inRun("r1", () -> this.tools.bookSlot(slot))).isEqualTo(slot);
		}
		else {
			this.jdbc.update(update, "{not json");
			assertThatExceptionOfType(ResultNotStoredException.class)
				.isThrownBy(() -> inRun("r1", () -> this.tools.bookSlot(slot)));
		}
		assertThat(this.tools.executions()).isEqualTo(executions);
	}

	@Test
	void storedArgumentsThatNoLongerFitTheReconcileMethodWaitForAHumanWithoutStoppingThePass() {
		IdempotencyKey broken = IdempotencyKeys.derive("book_slot", "{\"slot\":{\"number\":1,\"room\":\"A\"}}", "r1");
		IdempotencyKey fine = IdempotencyKeys.derive("book_slot", "{\"slot\":{\"number\":2,\"room\":\"B\"}}", "r1");
		this.ledger.claim(new io.idempotency.ledger.ClaimRequest(broken, "r1", "rep-1", "book_slot",
				"{\"slot\":{\"number\":1,\"room\":\"A\"}}"));
		this.ledger.claim(new io.idempotency.ledger.ClaimRequest(fine, "r1", "rep-1", "book_slot",
				"{\"slot\":{\"number\":2,\"room\":\"B\"}}"));
		// Slot.number was a number; the stored one is not any more.
		this.jdbc.update("UPDATE " + LEDGER_TABLE + " SET arguments = " + jsonParameter() + " WHERE idempotency_key = ?",
				"{\"slot\": {\"number\": \"one\", \"room\": \"A\"}}", broken.value());
		Reconciler reconciler = new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class),
				new JsonMapper(), new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5),
						Duration.ofMillis(1), Duration.ofMillis(1), 2));

		Reconciler.Pass first = await().until(reconciler::reconcile, (pass) -> pass.resolved() > 0);
		assertThat(first.succeeded()).isEqualTo(1);
		assertThat(first.postponed()).isEqualTo(1);
		assertThat(await().until(reconciler::reconcile, (pass) -> pass.awaitingHuman() > 0).awaitingHuman()).isEqualTo(1);
		assertThat(reconciler.reconcile()).isEqualTo(new Reconciler.Pass(0, 0, 0, 0));
		assertThat(this.ledger.find(fine).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(this.ledger.find(broken).orElseThrow().status()).isEqualTo(LedgerStatus.ATTEMPTING);
	}

	/** A JSON parameter as the result and arguments columns take it on this database. */
	String jsonParameter() {
		return "?";
	}

	private void assertRefused(Supplier<?> call, Class<? extends Throwable> type, String message) {
		int executions = this.tools.executions();
		assertThatExceptionOfType(type).isThrownBy(() -> inRun("hostile", call)).withMessageContaining(message);
		assertThat(this.tools.executions()).isEqualTo(executions);
		assertThat(rows()).isZero();
	}

	private void assertNothingHappened() {
		assertThat(this.tools.executions()).isEqualTo(this.executionsBefore);
		assertThat(rows()).isZero();
	}

	private int rows() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE, Integer.class);
	}

	private static <T> T inRun(String run, Supplier<T> work) {
		return RunContext.supply(new Run(run, "rep-1"), work);
	}

}
