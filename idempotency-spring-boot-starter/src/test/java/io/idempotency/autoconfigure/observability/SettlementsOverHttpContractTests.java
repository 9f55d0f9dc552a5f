package io.idempotency.autoconfigure.observability;

import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The settlement of calls by hand over HTTP, {@code /actuator/idempotencycalls}, through Boot's web stack, a
 * real HTTP client and a real ledger: listing, reading, settling, refusals that write nothing, two operators at
 * once and the counters. A subclass names the database ({@code test.database}).
 */
@SpringBootTest(classes = SettlementsOverHttpContractTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
				"management.endpoints.web.exposure.include=idempotencycalls",
				"management.endpoint.idempotencycalls.access=unrestricted",
				"idempotency.jdbc.table-name=" + SettlementsOverHttpContractTests.TABLE,
				"idempotency.jdbc.initialize-schema=always", "idempotency.reconciler.max-attempts=1",
				"idempotency.reconciler.stale-after=1ms", "idempotency.reconciler.initial-backoff=1ms",
				"idempotency.reconciler.interval=1h" })
abstract class SettlementsOverHttpContractTests {

	static final String TABLE = "tool_audit_settle_http";

	static final JsonMapper JSON = new JsonMapper();

	/** Refunds whose bank never answers, and whose reconcile method cannot tell whether they were booked. */
	public static class Refunds {

		@IdempotentTool(name = "book_refund", reconcile = "find")
		public Refund bookRefund(String account, int cents) {
			throw new UncheckedIOException(new SocketTimeoutException("the bank did not answer"));
		}

		/** Cannot tell: the bank's statements cannot be read. */
		Reconciliation<Refund> find(IdempotencyKey key) {
			throw new IllegalStateException("the bank's statements cannot be read");
		}

	}

	public record Refund(String account, int cents, String reference) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		DataSource dataSource(@Value("${test.database}") String database) {
			DataSource shared = TestDatabases.dataSource(TestDatabase.valueOf(database));
			LedgerSchema.drop(shared, TABLE);
			// Not the shared pool itself, which the context would close.
			return new DelegatingDataSource(shared);
		}

		@Bean
		Refunds refunds() {
			return new Refunds();
		}

	}

	/** Reads an answer's numbers as written: decimals with their scale, never through {@code double}. */
	static final JsonMapper EXACT = JsonMapper.builder()
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
		.build();

	record Answer(int status, JsonNode body, String text) {

		String message() {
			return this.body.path("message").asString();
		}

		String refused() {
			return this.body.path("refused").asString();
		}

	}

	@LocalServerPort
	int port;

	@Autowired
	Refunds refunds;

	@Autowired
	JdbcLedger ledger;

	@Autowired
	Reconciler reconciler;

	@Autowired
	Settlements settlements;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	MeterRegistry meters;

	final HttpClient http = HttpClient.newHttpClient();

	@BeforeEach
	void emptyTheLedger() {
		this.jdbc.update("DELETE FROM " + TABLE);
	}

	Answer get(String path) throws Exception {
		return send(HttpRequest.newBuilder(uri(path)).GET());
	}

	Answer post(String path, Map<String, String> body) throws Exception {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))));
	}

	Answer send(HttpRequest.Builder request) throws Exception {
		HttpResponse<String> response = this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofString());
		String body = response.body();
		return new Answer(response.statusCode(), JSON.readTree((body == null || body.isEmpty()) ? "{}" : body), body);
	}

	URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + "/actuator/idempotencycalls" + path);
	}

	static String query(String name, String value) {
		return name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8);
	}

	/** A refund whose outcome the reconciler could not learn: it waits for a human. */
	IdempotencyKey refundAwaitingHuman(String run, String account, int cents) {
		return new RefundsAwaitingHuman(this.refunds, this.jdbc, this.reconciler, this.settlements, TABLE)
			.book(run, account, cents);
	}

	/**
	 * Refunds that wait for a human, in a ledger table of the given name: the bank does not answer, and the
	 * reconciler, which cannot tell either, hands the call on after its one attempt.
	 */
	record RefundsAwaitingHuman(Refunds refunds, JdbcTemplate jdbc, Reconciler reconciler, Settlements settlements,
			String table) {

		IdempotencyKey book(String run, String account, int cents) {
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(
					() -> RunContext.supply(new Run(run, "rep-1"), () -> this.refunds.bookRefund(account, cents)));
			IdempotencyKey key = new IdempotencyKey(this.jdbc.queryForObject(
					"SELECT idempotency_key FROM " + this.table + " WHERE run_id = ?", String.class, run));
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				this.reconciler.reconcile();
				return this.settlements.awaitingHuman(CallFilter.all().limit(CallFilter.MAX_LIMIT))
					.calls()
					.stream()
					.anyMatch((call) -> call.entry().key().equals(key));
			});
			return key;
		}

	}

	LedgerEntry row(IdempotencyKey key) {
		return this.ledger.find(key).orElseThrow();
	}

	double counted(String name, String tag, String value) {
		return this.meters.get(name).tag(tag, value).functionCounter().count();
	}

	// Listing and reading

	@Test
	void theCallsAwaitingAHumanAreListedWithWhatAnOperatorNeedsAPageAtATime() throws Exception {
		IdempotencyKey first = refundAwaitingHuman("list-1", "Henderson Industrial", 1250);
		IdempotencyKey second = refundAwaitingHuman("list-2", "Acme", 300);
		IdempotencyKey third = refundAwaitingHuman("list-3", "Acme", 400);

		Answer page = get("?limit=2");
		assertThat(page.status()).isEqualTo(200);
		assertThat(page.body().path("calls")).extracting((call) -> call.path("key").asString())
			.containsExactly(first.value(), second.value());
		JsonNode call = page.body().path("calls").get(0);
		assertThat(call.path("tool").asString()).isEqualTo("book_refund");
		assertThat(call.path("runId").asString()).isEqualTo("list-1");
		assertThat(call.path("userId").asString()).isEqualTo("rep-1");
		assertThat(call.path("status").asString()).isEqualTo("unknown");
		assertThat(call.path("arguments").path("account").asString()).isEqualTo("Henderson Industrial");
		assertThat(call.path("error").asString()).contains("the bank did not answer");
		assertThat(call.path("reconcileAttempts").asInt()).isEqualTo(1);
		assertThat(call.path("age").asString()).startsWith("PT");
		long nextAfter = page.body().path("nextAfter").asLong();

		Answer next = get("?limit=2&after=" + nextAfter);
		assertThat(next.body().path("calls")).extracting((c) -> c.path("key").asString())
			.containsExactly(third.value());
		assertThat(next.body().path("nextAfter").isNull()).isTrue();

		assertThat(get("?" + query("tool", "book_refund") + "&olderThan=0s").body().path("calls")).hasSize(3);
		assertThat(get("?" + query("tool", "open_ticket")).body().path("calls")).isEmpty();
		assertThat(get("?olderThan=1h").body().path("calls")).isEmpty();

		Answer one = get("/" + first.value());
		assertThat(one.status()).isEqualTo(200);
		assertThat(one.body().path("key").asString()).isEqualTo(first.value());
		assertThat(one.body().path("arguments").path("cents").asInt()).isEqualTo(1250);
	}

	@Test
	void aListingThatCannotBeReadIsA400ThatSaysWhy() throws Exception {
		Answer limit = get("?limit=5000");
		assertThat(limit.status()).isEqualTo(400);
		assertThat(limit.message()).contains("'limit'").contains("1 to 1000").contains("5000");
		Answer olderThan = get("?olderThan=yesterday");
		assertThat(olderThan.status()).isEqualTo(400);
		assertThat(olderThan.message()).contains("'olderThan'").contains("yesterday");
		Answer after = get("?after=-1");
		assertThat(after.status()).isEqualTo(400);
		assertThat(after.message()).contains("'after'");
	}

	@Test
	void anUnknownOrMalformedKeyIsA404OrA400() throws Exception {
		String unknown = "a".repeat(64);
		Answer read = get("/" + unknown);
		assertThat(read.status()).isEqualTo(404);
		assertThat(read.refused()).isEqualTo("unknown_key");
		assertThat(read.message()).contains(unknown);
		Answer settle = post("/" + unknown, Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna"));
		assertThat(settle.status()).isEqualTo(404);
		assertThat(settle.refused()).isEqualTo("unknown_key");
		assertThat(settle.message()).contains("nothing was written");
		Answer malformed = get("/not-a-key");
		assertThat(malformed.status()).isEqualTo(400);
		assertThat(malformed.message()).contains("64 lowercase hex characters");
	}

	// Settling

	@Test
	void aCallSettledSucceededOverHttpIsStoredWithWhoAndWhyAndRead() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("settle-ok", "Henderson Industrial", 1250);
		String result = "{\"account\":\"Henderson Industrial\",\"cents\":1250,\"reference\":\"RF-1\"}";

		Answer settled = post("/" + key.value(), Map.of("settle", "succeeded", "result", result, "reason",
				"RF-1 is in the bank's statement", "operator", "ops-anna"));

		assertThat(settled.status()).isEqualTo(200);
		assertThat(settled.body().path("status").asString()).isEqualTo("succeeded");
		assertThat(settled.body().path("settledBy").asString()).isEqualTo("ops-anna");
		assertThat(settled.body().path("settleReason").asString()).isEqualTo("RF-1 is in the bank's statement");
		assertThat(settled.body().path("result").path("reference").asString()).isEqualTo("RF-1");
		LedgerEntry row = row(key);
		assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED);
		assertThat(JSON.readTree(row.result())).isEqualTo(JSON.readTree(result));
		assertThat(this.settlements.find(key).orElseThrow().settledBy()).isEqualTo("ops-anna");
		// A repeat of the call now reads the settled outcome: replayed, not executed again.
		Refund repeat = RunContext.supply(new Run("settle-ok", "rep-1"),
				() -> this.refunds.bookRefund("Henderson Industrial", 1250));
		assertThat(repeat).isEqualTo(new Refund("Henderson Industrial", 1250, "RF-1"));
		assertThat(get("?limit=10").body().path("calls")).isEmpty();
	}

	@Test
	void aCallSettledFailedOrSentBackOverHttpIsStored() throws Exception {
		IdempotencyKey failed = refundAwaitingHuman("settle-failed", "Acme", 10);
		IdempotencyKey retried = refundAwaitingHuman("settle-retry", "Acme", 20);

		Answer failing = post("/" + failed.value(), Map.of("settle", "failed", "reason",
				"No refund was booked. Ask the customer whether to book it again.", "operator", "ops-anna"));
		Answer retrying = post("/" + retried.value(),
				Map.of("settle", "retry", "reason", "the bank is back", "operator", "ops-ben"));

		assertThat(failing.status()).isEqualTo(200);
		assertThat(row(failed).status()).isEqualTo(LedgerStatus.FAILED);
		assertThat(row(failed).error()).isEqualTo("No refund was booked. Ask the customer whether to book it again.");
		assertThat(retrying.status()).isEqualTo(200);
		assertThat(retrying.body().path("settledBy").asString()).isEqualTo("ops-ben");
		assertThat(row(retried).status()).isEqualTo(LedgerStatus.UNKNOWN);
		assertThat(get("?limit=10").body().path("calls")).as("no longer waits for a human").isEmpty();
	}

	@Test
	void badInputIsA4xxThatSaysWhatWasWrongAndWritesNothing() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("bad-input", "Henderson Industrial", 1250);
		LedgerEntry before = row(key);
		String path = "/" + key.value();

		Answer noReason = post(path, Map.of("settle", "failed", "reason", " ", "operator", "ops-anna"));
		assertThat(noReason.status()).isEqualTo(400);
		assertThat(noReason.refused()).isEqualTo("missing_reason");
		assertThat(noReason.message()).contains("say why");

		Answer noOperator = post(path, Map.of("settle", "failed", "reason", "no refund"));
		assertThat(noOperator.status()).isEqualTo(400);
		assertThat(noOperator.refused()).isEqualTo("missing_reason");
		assertThat(noOperator.message()).contains("'operator'").contains("no authenticated user");

		Answer blankOperator = post(path, Map.of("settle", "failed", "reason", "no refund", "operator", "  "));
		assertThat(blankOperator.status()).isEqualTo(400);

		Answer noKind = post(path, Map.of("reason", "no refund", "operator", "ops-anna"));
		assertThat(noKind.status()).isEqualTo(400);
		assertThat(noKind.refused()).isEqualTo("invalid_request");
		assertThat(noKind.message()).contains("'settle'");

		Answer badKind = post(path, Map.of("settle", "done", "reason", "no refund", "operator", "ops-anna"));
		assertThat(badKind.status()).isEqualTo(400);
		assertThat(badKind.message()).contains("'done'").contains("succeeded, failed or retry");

		Answer resultWithFailure = post(path,
				Map.of("settle", "failed", "result", "{}", "reason", "no refund", "operator", "ops-anna"));
		assertThat(resultWithFailure.status()).isEqualTo(400);
		assertThat(resultWithFailure.message()).contains("only to settle a call as succeeded");

		Answer unknownMember = post(path, Map.of("settle", "succeeded", "result",
				"{\"account\":\"Henderson Industrial\",\"cents\":1250,\"refrence\":\"RF-1\"}", "reason", "found it",
				"operator", "ops-anna"));
		assertThat(unknownMember.status()).isEqualTo(400);
		assertThat(unknownMember.refused()).isEqualTo("result_refused");
		assertThat(unknownMember.message()).contains("refrence")
			.contains("book_refund")
			.contains("the result type has no such member");
		assertNoJavaType(unknownMember.message());

		Answer wrongType = post(path, Map.of("settle", "succeeded", "result",
				"{\"account\":\"Henderson Industrial\",\"cents\":\"a lot\",\"reference\":\"RF-1\"}", "reason",
				"found it", "operator", "ops-anna"));
		assertThat(wrongType.status()).isEqualTo(400);
		assertThat(wrongType.message()).contains("\"a lot\"").contains("not a whole number");
		assertNoJavaType(wrongType.message());

		Answer notJson = post(path,
				Map.of("settle", "succeeded", "result", "{\"account\":", "reason", "found it", "operator", "ops-anna"));
		assertThat(notJson.status()).isEqualTo(400);
		assertThat(notJson.refused()).isEqualTo("result_refused");

		Answer noResult = post(path, Map.of("settle", "succeeded", "reason", "found it", "operator", "ops-anna"));
		assertThat(noResult.status()).isEqualTo(400);
		assertThat(noResult.message()).contains("give the result");

		Answer resultAsAnObject = send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"settle\":\"succeeded\",\"result\":{\"account\":\"Acme\"},"
					+ "\"reason\":\"found it\",\"operator\":\"ops-anna\"}")));
		assertThat(resultAsAnObject.status()).as("a result is JSON text, not an object").isEqualTo(400);

		assertThat(row(key)).as("nothing was written").isEqualTo(before);
		assertThat(this.settlements.find(key).orElseThrow().settledBy()).isNull();
	}

	@Test
	void inputsTheDatabaseCannotTakeAreA400ThatSaysWhatWasWrongAndWritesNothing() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("unstorable", "Acme", 10);
		LedgerEntry before = row(key);
		String path = "/" + key.value();

		for (String olderThan : List.of("3000000d", "99999999999d", "36526d")) {
			Answer tooFarBack = get("?olderThan=" + olderThan);
			assertThat(tooFarBack.status()).as(olderThan).isEqualTo(400);
			assertThat(tooFarBack.refused()).isEqualTo("invalid_request");
			assertThat(tooFarBack.message()).contains("olderThan").contains("36525 days");
		}
		Answer furthestBack = get("?olderThan=36525d");
		assertThat(furthestBack.status()).as("100 years back, on every database").isEqualTo(200);
		assertThat(furthestBack.body().path("calls")).isEmpty();
		Answer nulInTool = get("?" + query("tool", "book_\u0000refund"));
		assertThat(nulInTool.status()).isEqualTo(400);
		assertThat(nulInTool.message()).contains("tool").contains("control character");

		Answer nulInReason = post(path, Map.of("settle", "failed", "reason", "no refund\u0000", "operator", "ops-anna"));
		assertThat(nulInReason.status()).isEqualTo(400);
		assertThat(nulInReason.refused()).isEqualTo("invalid_request");
		assertThat(nulInReason.message()).contains("the reason").contains("U+0000");
		Answer nulInOperator = post(path, Map.of("settle", "retry", "reason", "the bank is back", "operator", "ops\u0000anna"));
		assertThat(nulInOperator.status()).isEqualTo(400);
		assertThat(nulInOperator.message()).contains("who settles").contains("U+0000");
		Answer lineBreakInOperator = post(path,
				Map.of("settle", "retry", "reason", "the bank is back", "operator", "ops-anna\nops-ben"));
		assertThat(lineBreakInOperator.status()).isEqualTo(400);
		assertThat(lineBreakInOperator.message()).contains("U+000A");
		Answer longOperator = post(path,
				Map.of("settle", "failed", "reason", "no refund", "operator", "o".repeat(256)));
		assertThat(longOperator.status()).isEqualTo(400);
		assertThat(longOperator.refused()).isEqualTo("invalid_request");
		assertThat(longOperator.message()).contains("256 characters").contains("at most 255");
		Answer nulInResult = post(path, Map.of("settle", "succeeded", "result",
				"{\"account\":\"Ac\\u0000me\",\"cents\":10,\"reference\":\"RF-1\"}", "reason", "found it", "operator",
				"ops-anna"));
		assertThat(nulInResult.status()).isEqualTo(400);
		assertThat(nulInResult.refused()).isEqualTo("result_refused");
		assertThat(nulInResult.message()).contains("U+0000");
		for (Answer refused : List.of(nulInReason, nulInOperator, lineBreakInOperator, longOperator, nulInResult)) {
			assertNoJavaType(refused.message());
		}

		assertThat(row(key)).as("nothing was written").isEqualTo(before);
		assertThat(this.settlements.find(key).orElseThrow().settledBy()).isNull();
		Answer multiline = post(path,
				Map.of("settle", "failed", "reason", "No refund was booked.\n\tAsk the customer.", "operator", "ops-anna"));
		assertThat(multiline.status()).as("tabs and line breaks in a reason are text").isEqualTo(200);
		assertThat(row(key).error()).isEqualTo("No refund was booked.\n\tAsk the customer.");
	}

	// What is shown

	@Test
	void storedArgumentsAndResultsAreShownAsTheLedgerHoldsThemNeverThroughDouble() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("exact", "Acme", 10);
		String json = "postgresql".equals(LedgerSchema.platformOf(this.jdbc.getDataSource())) ? "CAST(? AS JSONB)" : "?";
		// As the advice stores a BigDecimal argument or result of a tool that books amounts.
		this.jdbc.update("UPDATE " + TABLE + " SET arguments = " + json + " WHERE idempotency_key = ?",
				"{\"account\":\"Acme\",\"amount\":0.123456789012345678,\"fee\":12.50,\"cents\":10}", key.value());

		Answer listed = get("?limit=10");
		Answer read = get("/" + key.value());

		assertThat(listed.text()).contains("0.123456789012345678").contains("12.50").doesNotContain("0.12345678901234568");
		assertExact(listed.text(), "/calls/0/arguments");
		assertThat(read.text()).contains("0.123456789012345678").contains("12.50");
		assertExact(read.text(), "/arguments");

		Answer settled = post("/" + key.value(), Map.of("settle", "succeeded", "result",
				"{\"account\":\"Acme\",\"cents\":10,\"reference\":\"RF-1\"}", "reason", "found it", "operator",
				"ops-anna"));
		assertThat(settled.status()).isEqualTo(200);
		this.jdbc.update("UPDATE " + TABLE + " SET result = " + json + " WHERE idempotency_key = ?",
				"{\"account\":\"Acme\",\"amount\":0.123456789012345678,\"fee\":12.50,\"cents\":10}", key.value());
		Answer result = get("/" + key.value());
		assertThat(result.text()).contains("0.123456789012345678").contains("12.50");
		assertExact(result.text(), "/result");
	}

	/** The amounts under this pointer of the answer, read to the digit: {@code 12.50} is not {@code 12.5}. */
	static void assertExact(String answer, String pointer) {
		JsonNode node = EXACT.readTree(answer).at(pointer);
		assertThat(node.path("amount").decimalValue()).isEqualTo(new BigDecimal("0.123456789012345678"));
		assertThat(node.path("fee").decimalValue()).isEqualTo(new BigDecimal("12.50"));
		assertThat(node.path("cents").asInt()).isEqualTo(10);
		assertThat(node.path("account").asString()).isEqualTo("Acme");
	}

	static void assertNoJavaType(String message) {
		assertThat(message).doesNotContain("io.idempotency")
			.doesNotContain("java.")
			.doesNotContain("$")
			.doesNotContain("`")
			.doesNotContain("(class ")
			.doesNotContain("Refund");
	}

	@Test
	void aCallNotAwaitingAHumanOrSettledAlreadyIsA409AndUnchanged() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("twice", "Acme", 10);
		assertThat(post("/" + key.value(), Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna"))
			.status()).isEqualTo(200);
		LedgerEntry settled = row(key);

		Answer again = post("/" + key.value(), Map.of("settle", "succeeded", "result",
				"{\"account\":\"Acme\",\"cents\":10,\"reference\":\"RF-2\"}", "reason", "found it after all", "operator",
				"ops-ben"));

		assertThat(again.status()).isEqualTo(409);
		assertThat(again.refused()).isEqualTo("already_settled");
		assertThat(again.message()).contains("already settled failed by ops-anna");
		assertThat(row(key)).isEqualTo(settled);

		// A call still attempting: not handed to a human.
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> RunContext
			.supply(new Run("fresh", "rep-1"), () -> this.refunds.bookRefund("Acme", 99)));
		IdempotencyKey fresh = new IdempotencyKey(this.jdbc.queryForObject(
				"SELECT idempotency_key FROM " + TABLE + " WHERE run_id = ?", String.class, "fresh"));
		Answer notYet = post("/" + fresh.value(),
				Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna"));
		assertThat(notYet.status()).isEqualTo(409);
		assertThat(notYet.refused()).isEqualTo("not_awaiting_human");
		assertThat(row(fresh).status()).isEqualTo(LedgerStatus.UNKNOWN);
	}

	@Test
	void ofOperatorsSettlingOneCallAtOnceOverHttpExactlyOneWinsAndTheOthersAreTold() throws Exception {
		int operators = 6;
		int rounds = 8;
		ExecutorService pool = Executors.newFixedThreadPool(operators);
		try {
			for (int round = 0; round < rounds; round++) {
				IdempotencyKey key = refundAwaitingHuman("race-" + round, "Acme", round + 1);
				CyclicBarrier start = new CyclicBarrier(operators);
				List<Future<Answer>> answers = new ArrayList<>();
				for (int operator = 0; operator < operators; operator++) {
					Map<String, String> body = (operator % 2 == 0)
							? Map.of("settle", "failed", "reason", "no refund", "operator", "ops-" + operator)
							: Map.of("settle", "succeeded", "result",
									"{\"account\":\"Acme\",\"cents\":" + (round + 1) + ",\"reference\":\"RF-" + operator
											+ "\"}",
									"reason", "found it", "operator", "ops-" + operator);
					answers.add(pool.submit(() -> {
						start.await(30, java.util.concurrent.TimeUnit.SECONDS);
						return post("/" + key.value(), body);
					}));
				}
				List<Answer> done = new ArrayList<>();
				for (Future<Answer> answer : answers) {
					done.add(answer.get(60, java.util.concurrent.TimeUnit.SECONDS));
				}
				List<Answer> won = done.stream().filter((answer) -> answer.status() == 200).toList();
				assertThat(won).as("round %d: one operator wins", round).hasSize(1);
				String winner = won.get(0).body().path("settledBy").asString();
				assertThat(done).filteredOn((answer) -> answer.status() != 200)
					.hasSize(operators - 1)
					.allSatisfy((lost) -> {
						assertThat(lost.status()).isEqualTo(409);
						assertThat(lost.refused()).isEqualTo("already_settled");
						assertThat(lost.message()).contains("by " + winner);
					});
				LedgerEntry row = row(key);
				assertThat(row.status().name().toLowerCase()).isEqualTo(won.get(0).body().path("status").asString());
				assertThat(this.settlements.find(key).orElseThrow().settledBy()).isEqualTo(winner);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void settlementsAndRefusalsAreCountedByKind() throws Exception {
		double succeeded = counted("idempotency.settlements", "idempotency.settlement", "succeeded");
		double failed = counted("idempotency.settlements", "idempotency.settlement", "failed");
		double retry = counted("idempotency.settlements", "idempotency.settlement", "retry");
		double alreadySettled = counted("idempotency.settlements.refused", "idempotency.reason", "already_settled");
		double resultRefused = counted("idempotency.settlements.refused", "idempotency.reason", "result_refused");
		IdempotencyKey one = refundAwaitingHuman("count-1", "Acme", 1);
		IdempotencyKey two = refundAwaitingHuman("count-2", "Acme", 2);
		IdempotencyKey three = refundAwaitingHuman("count-3", "Acme", 3);

		post("/" + one.value(), Map.of("settle", "succeeded", "result", "{\"cents\":\"a lot\"}", "reason", "found it",
				"operator", "ops-anna"));
		post("/" + one.value(), Map.of("settle", "succeeded", "result",
				"{\"account\":\"Acme\",\"cents\":1,\"reference\":\"RF-1\"}", "reason", "found it", "operator", "ops-anna"));
		post("/" + two.value(), Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna"));
		post("/" + two.value(), Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna"));
		post("/" + three.value(), Map.of("settle", "retry", "reason", "the bank is back", "operator", "ops-anna"));

		assertThat(counted("idempotency.settlements", "idempotency.settlement", "succeeded") - succeeded).isEqualTo(1);
		assertThat(counted("idempotency.settlements", "idempotency.settlement", "failed") - failed).isEqualTo(1);
		assertThat(counted("idempotency.settlements", "idempotency.settlement", "retry") - retry).isEqualTo(1);
		assertThat(counted("idempotency.settlements.refused", "idempotency.reason", "already_settled")
				- alreadySettled).isEqualTo(1);
		assertThat(counted("idempotency.settlements.refused", "idempotency.reason", "result_refused") - resultRefused)
			.isEqualTo(1);
	}

}
