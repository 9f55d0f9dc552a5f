package io.idempotency;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.SecretTools.Credentials;
import io.idempotency.SecretTools.Header;
import io.idempotency.SecretTools.Settings;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Secrets planted in every place a tool call can carry them (arguments at any depth and in any spelling, a
 * parameter marked sensitive, exception messages that quote them, results that hold or echo them, a result
 * the reconciler finds), then every column of every row of the ledger searched for them in clear text.
 */
abstract class SecretSweepContractTests {

	static final String LEDGER_TABLE = "tool_audit_secrets_test";

	static final String API_KEY = "sk-planted-api-key-0001";

	static final String PASSWORD = "planted-password-hunter2";

	static final String BEARER = "Bearer planted-bearer-0003";

	static final String ACCESS_TOKEN = "planted-access-token-0004";

	static final String PIN = "planted-pin-0005";

	static final String ISSUED_TOKEN = "planted-issued-token-0006";

	static final String RECONCILED_TOKEN = "planted-reconciled-token-0007";

	static final String GITHUB_TOKEN = "ghp_planted-github-token-0008";

	static final String STRIPE_API_KEY = "sk_live_planted-stripe-0009";

	static final String DB_PASSWORD = "planted-db-password-0010";

	static final String TEXT_TOKEN = "planted-text-token-0011";

	static final String RECONCILED_TEXT_TOKEN = "planted-reconciled-text-token-0012";

	static final String ENVELOPE_KEY = "planted-envelope-key-0013";

	static final String NESTED_PASSWORD = "planted-nested-password-0014";

	static final String FUNCTION_KEY = "planted-function-key-0015";

	/** A key with the characters JSON escapes: stored JSON holds it as {@code sk-\"quoted\"-\\planted-0016}. */
	static final String QUOTED_KEY = "sk-\"quoted\"-\\planted-0016";

	static final String QUOTED_PASSWORD = "pass\\word-\"planted\"-0017";

	private static final List<String> SECRETS = List.of(API_KEY, PASSWORD, BEARER, ACCESS_TOKEN, PIN, ISSUED_TOKEN,
			RECONCILED_TOKEN, GITHUB_TOKEN, STRIPE_API_KEY, DB_PASSWORD);

	private static final JsonMapper JSON = new JsonMapper();

	abstract DataSource dataSource();

	@Test
	void noPlantedSecretReachesAnyColumnOfAnyRow() {
		DataSource dataSource = dataSource();
		try (AnnotationConfigApplicationContext context = ToolContexts.start(dataSource, LEDGER_TABLE, SecretTools.class,
				SecretTools::new)) {
			SecretTools tools = context.getBean(SecretTools.class);
			JdbcLedger ledger = context.getBean(JdbcLedger.class);

			inRun(() -> tools.connect("api.example", API_KEY));
			fails(() -> tools.connect("refused", API_KEY), IllegalArgumentException.class);
			fails(() -> tools.connect("slow", API_KEY), java.io.UncheckedIOException.class);
			inRun(() -> tools.configure(new Settings("acme", new Credentials("ada", PASSWORD),
					List.of(new Header("x-trace", "t-1"), new Header("proxy", BEARER)), Map.of("access_token", ACCESS_TOKEN))));
			inRun(() -> tools.echoKey("acme", API_KEY));
			inRun(() -> tools.deploy("acme/site", GITHUB_TOKEN, STRIPE_API_KEY, DB_PASSWORD));
			fails(() -> tools.deploy("refused", GITHUB_TOKEN, STRIPE_API_KEY, DB_PASSWORD), IllegalArgumentException.class);
			inRun(() -> tools.issueToken("acme"));
			fails(() -> tools.unlock("front", PIN), IllegalStateException.class);
			// Repeats: answered from the rows, never with a secret they do not hold.
			assertThat(inRun(() -> tools.connect("api.example", API_KEY))).isEqualTo("connected to api.example");
			fails(() -> tools.issueToken("acme"), ResultNotStoredException.class);
			fails(() -> tools.echoKey("acme", API_KEY), ResultNotStoredException.class);
			// A call whose instance died, settled by the reconciler with a result that holds a secret.
			String arguments = "{\"account\":\"globex\"}";
			ledger.claim(new ClaimRequest(IdempotencyKeys.derive("issue_token", arguments, "sweep"), "sweep", "rep-1",
					"issue_token", arguments));
			Reconciler reconciler = new Reconciler(ledger, context.getBean(IdempotentToolRegistry.class), new JsonMapper(),
					new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMillis(1),
							Duration.ofMillis(1), 3));
			// The call whose answer was lost (connect to "slow") is settled too.
			await().until(() -> {
				reconciler.reconcile();
				return ledger.countByStatus().getOrDefault(io.idempotency.ledger.LedgerStatus.ATTEMPTING, 0L)
						+ ledger.countByStatus().getOrDefault(io.idempotency.ledger.LedgerStatus.UNKNOWN, 0L) == 0;
			});
			fails(() -> RunContext.supply(new Run("sweep", "rep-1"), () -> tools.issueToken("globex")),
					ResultNotStoredException.class);
			ledger.flushReplayCounts();
		}

		List<Map<String, Object>> rows = new JdbcTemplate(dataSource).queryForList("SELECT * FROM " + LEDGER_TABLE);
		assertThat(rows).as("rows searched").hasSize(10);
		for (Map<String, Object> row : rows) {
			row.forEach((column, value) -> SECRETS.forEach((secret) -> assertThat(String.valueOf(value))
				.as("column %s of row %s", column, row.get("id"))
				.doesNotContain(secret)));
		}
		assertThat(rows.toString()).contains(Redaction.REDACTED);
	}

	@Test
	void aResultThatIsJsonTextHoldingASecretMemberIsNotStoredOnAnyPath() {
		DataSource dataSource = dataSource();
		List<IdempotentCall> told = new CopyOnWriteArrayList<>();
		IdempotentFunction<String> issueKey = IdempotentFunction.builder("issue_key", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		IdempotentFunction<String> openTicket = IdempotentFunction.builder("open_ticket", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		try (AnnotationConfigApplicationContext context = ToolContexts.start(dataSource, LEDGER_TABLE, SecretTools.class,
				SecretTools::new, (beans) -> beans.registerBean(IdempotentCallListener.class, () -> told::add))) {
			SecretTools tools = context.getBean(SecretTools.class);
			JdbcLedger ledger = context.getBean(JdbcLedger.class);
			IdempotentCalls calls = context.getBean(IdempotentCalls.class);
			calls.register(issueKey);
			calls.register(openTicket);

			assertThat(inRun(() -> tools.issueTokenText("acme"))).as("the caller gets the result").contains(TEXT_TOKEN);
			inRun(() -> tools.issueKeyEnvelope("acme"));
			inRun(() -> tools.reply("acme"));
			inRun(() -> calls.call(issueKey, "{\"account\":\"acme\"}", () -> "{\"apiKey\":\"" + FUNCTION_KEY + "\"}"));
			// Text that holds no secret, JSON or not, is stored and replayed as it is.
			inRun(() -> calls.call(openTicket, "{\"account\":\"acme\"}", () -> "{\"ticket\":\"T-1\",\"key\":\"PROJ-1\"}"));
			inRun(() -> calls.call(openTicket, "{\"account\":\"globex\"}", () -> "{\"token\": cut short"));

			fails(() -> tools.issueTokenText("acme"), ResultNotStoredException.class);
			assertThat(inRun(() -> tools.issueKeyEnvelope("acme")).kind()).isEqualTo(Answer.REPLAYED_WITHOUT_RESULT);
			fails(() -> tools.reply("acme"), ResultNotStoredException.class);
			fails(() -> calls.call(issueKey, "{\"account\":\"acme\"}", () -> "run again"), ResultNotStoredException.class);
			assertThat(inRun(() -> calls.call(openTicket, "{\"account\":\"acme\"}", () -> "run again")))
				.isEqualTo("{\"ticket\":\"T-1\",\"key\":\"PROJ-1\"}");
			assertThat(inRun(() -> calls.call(openTicket, "{\"account\":\"globex\"}", () -> "run again")))
				.isEqualTo("{\"token\": cut short");

			// A call whose instance died, settled by the reconciler with text that holds a secret.
			String arguments = "{\"account\":\"globex\"}";
			ledger.claim(new ClaimRequest(IdempotencyKeys.derive("issue_token_text", arguments, "sweep"), "sweep",
					"rep-1", "issue_token_text", arguments));
			Reconciler reconciler = new Reconciler(ledger, context.getBean(IdempotentToolRegistry.class), new JsonMapper(),
					new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMillis(1),
							Duration.ofMillis(1), 3));
			await().until(() -> reconciler.reconcile().succeeded() == 1);
			fails(() -> tools.issueTokenText("globex"), ResultNotStoredException.class);
		}

		assertThat(told).extracting(IdempotentCall::answer)
			.filteredOn(Answer::isRepeat)
			.containsExactly(Answer.REPLAYED_WITHOUT_RESULT, Answer.REPLAYED_WITHOUT_RESULT,
					Answer.REPLAYED_WITHOUT_RESULT, Answer.REPLAYED_WITHOUT_RESULT, Answer.REPLAYED, Answer.REPLAYED,
					Answer.REPLAYED_WITHOUT_RESULT);
		List<Map<String, Object>> rows = rows(dataSource);
		assertThat(rows).hasSize(7).allSatisfy((row) -> assertThat(row.get("status")).isEqualTo("succeeded"));
		assertThat(rows).filteredOn((row) -> !"open_ticket".equals(row.get("tool")))
			.allSatisfy((row) -> assertThat(row.get("result")).as("the result of %s", row.get("tool")).isNull());
		assertThat(rows).filteredOn((row) -> !"open_ticket".equals(row.get("tool")) && !"globex".equals(account(row)))
			.allSatisfy((row) -> assertThat(String.valueOf(row.get("error"))).startsWith("The result is not stored:"));
		assertNoneInAnyColumn(rows, List.of(TEXT_TOKEN, RECONCILED_TEXT_TOKEN, ENVELOPE_KEY, NESTED_PASSWORD, FUNCTION_KEY));
	}

	@Test
	void aSecretWithQuotesAndBackslashesIsFoundEscapedInResultsAndErrorText() {
		DataSource dataSource = dataSource();
		try (AnnotationConfigApplicationContext context = ToolContexts.start(dataSource, LEDGER_TABLE, SecretTools.class,
				SecretTools::new)) {
			SecretTools tools = context.getBean(SecretTools.class);

			inRun(() -> tools.echoKey("globex", QUOTED_KEY));
			inRun(() -> tools.echoKeyJson("globex", QUOTED_KEY));
			inRun(() -> tools.configure(new Settings("initech", new Credentials("bob", QUOTED_PASSWORD), List.of(),
					Map.of())));
			fails(() -> tools.callService("charges", QUOTED_KEY), IllegalStateException.class);
			fails(() -> tools.connect("refused", QUOTED_KEY), IllegalArgumentException.class);

			fails(() -> tools.echoKey("globex", QUOTED_KEY), ResultNotStoredException.class);
			fails(() -> tools.echoKeyJson("globex", QUOTED_KEY), ResultNotStoredException.class);
		}

		List<Map<String, Object>> rows = rows(dataSource);
		assertThat(rows).hasSize(5);
		assertThat(rows).filteredOn((row) -> "call_service".equals(row.get("tool")))
			.singleElement()
			.satisfies((row) -> assertThat(String.valueOf(row.get("error"))).contains("400 Bad Request")
				.contains(Redaction.REDACTED));
		assertNoneInAnyColumn(rows, List.of(QUOTED_KEY, QUOTED_PASSWORD));
	}

	@Test
	void aSecretSentAsNullIsStoredAsNullAndIsTheSameDetailAsOneLeftOut() {
		DataSource dataSource = dataSource();
		List<IdempotentCall> told = new CopyOnWriteArrayList<>();
		IdempotentFunction<String> connectAccount = IdempotentFunction.builder("connect_account_function", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.keyArguments("account")
			.onDifferentDetails(DifferentDetails.REFUSE)
			.build();
		IdempotentFunction<String> linkAccount = IdempotentFunction.builder("link_account", String.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.keyArguments("account")
			.build();
		try (AnnotationConfigApplicationContext context = ToolContexts.start(dataSource, LEDGER_TABLE, SecretTools.class,
				SecretTools::new, (beans) -> beans.registerBean(IdempotentCallListener.class, () -> told::add))) {
			SecretTools tools = context.getBean(SecretTools.class);
			IdempotentCalls calls = context.getBean(IdempotentCalls.class);
			calls.register(connectAccount);
			calls.register(linkAccount);

			inRun(() -> calls.call(connectAccount, "{\"account\":\"acme\",\"apiKey\":null}", () -> "connected acme"));
			assertThat(inRun(() -> calls.call(connectAccount, "{\"account\":\"acme\"}", () -> "connected again")))
				.as("a key left out is the key sent as null: the same intent, not refused")
				.isEqualTo("connected acme");
			inRun(() -> calls.call(linkAccount, "{\"account\":\"acme\",\"login\":{\"user\":\"ada\",\"password\":null}}",
					() -> "linked acme"));
			assertThat(inRun(() -> calls.call(linkAccount, "{\"login\":{\"user\":\"ada\"},\"account\":\"acme\"}",
					() -> "linked again"))).isEqualTo("linked acme");

			// An annotated tool: a key given on a repeat of a call without one is a detail that differs.
			assertThat(inRun(() -> tools.connectAccount("acme", null))).isEqualTo("connected acme without a key");
			assertThat(inRun(() -> tools.connectAccount("acme", null))).isEqualTo("connected acme without a key");
			assertThatExceptionOfType(DifferentDetailsException.class)
				.isThrownBy(() -> inRun(() -> tools.connectAccount("acme", API_KEY)))
				.satisfies((refused) -> assertThat(refused.differentDetails()).containsExactly("apiKey"));
		}

		assertThat(told).extracting(IdempotentCall::answer)
			.containsExactly(Answer.EXECUTED, Answer.REPLAYED, Answer.EXECUTED, Answer.REPLAYED, Answer.EXECUTED,
					Answer.REPLAYED, Answer.REFUSED_DIFFERENT_DETAILS);
		List<Map<String, Object>> rows = rows(dataSource);
		assertThat(rows).hasSize(3);
		for (Map<String, Object> row : rows) {
			JsonNode stored = JSON.readTree(String.valueOf(row.get("arguments")));
			JsonNode secret = "link_account".equals(row.get("tool")) ? stored.get("login").get("password")
					: stored.get("apiKey");
			assertThat(secret).as("the secret member of %s, sent as null", row.get("tool")).isNotNull();
			assertThat(secret.isNull()).as("the secret member of %s, sent as null: %s", row.get("tool"), stored).isTrue();
		}
		assertNoneInAnyColumn(rows, List.of(API_KEY));
	}

	private static List<Map<String, Object>> rows(DataSource dataSource) {
		return new JdbcTemplate(dataSource).queryForList("SELECT * FROM " + LEDGER_TABLE);
	}

	private static String account(Map<String, Object> row) {
		JsonNode account = JSON.readTree(String.valueOf(row.get("arguments"))).get("account");
		return (account != null) ? account.asString() : null;
	}

	/** No secret in any column: not as it is, nor as JSON holds it (escaped), nor as JSON text inside JSON does. */
	private static void assertNoneInAnyColumn(List<Map<String, Object>> rows, List<String> secrets) {
		List<String> forms = new ArrayList<>();
		for (String secret : secrets) {
			String escaped = escaped(secret);
			forms.addAll(List.of(secret, escaped, escaped(escaped)));
		}
		for (Map<String, Object> row : rows) {
			row.forEach((column, value) -> forms.forEach((form) -> assertThat(String.valueOf(value))
				.as("column %s of row %s", column, row.get("id"))
				.doesNotContain(form)));
		}
	}

	private static String escaped(String text) {
		String json = JSON.writeValueAsString(text);
		return json.substring(1, json.length() - 1);
	}

	private static <T> T inRun(Supplier<T> work) {
		return RunContext.supply(new Run("sweep", "rep-1"), work);
	}

	private static void fails(Supplier<?> work, Class<? extends Throwable> type) {
		assertThatExceptionOfType(type).isThrownBy(() -> inRun(work));
	}

}
