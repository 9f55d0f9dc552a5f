package io.idempotency;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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

	private static final List<String> SECRETS = List.of(API_KEY, PASSWORD, BEARER, ACCESS_TOKEN, PIN, ISSUED_TOKEN,
			RECONCILED_TOKEN, GITHUB_TOKEN, STRIPE_API_KEY, DB_PASSWORD);

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

	private static <T> T inRun(Supplier<T> work) {
		return RunContext.supply(new Run("sweep", "rep-1"), work);
	}

	private static void fails(Supplier<?> work, Class<? extends Throwable> type) {
		assertThatExceptionOfType(type).isThrownBy(() -> inRun(work));
	}

}
