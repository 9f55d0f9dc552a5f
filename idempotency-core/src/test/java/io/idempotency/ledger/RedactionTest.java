package io.idempotency.ledger;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import tools.jackson.core.json.JsonWriteFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** Redaction matches whole names, and scrubs what it removed from error text. */
class RedactionTest {

	@Test
	void namesThatMerelyContainASecretWordAreKept() {
		String stored = Redaction.defaults()
			.redact("{\"secretaryName\":\"Ann Lee\",\"maxTokens\":512,\"preAuthorizationId\":\"pa-1\",\"tokenizer\":\"bpe\"}",
					Set.of());

		assertThat(stored).contains("Ann Lee").contains("512").contains("pa-1").contains("bpe");
	}

	@Test
	void wholeNamesAreRedactedWhateverTheirCaseUnderscoresOrHyphensAtAnyDepth() {
		String stored = Redaction.defaults()
			.redact("{\"ACCESS_TOKEN\":\"t-123\",\"api-key\":\"k-456\",\"order\":{\"items\":[{\"Password\":\"p-789\"}]}}",
					Set.of());

		assertThat(stored).doesNotContain("t-123").doesNotContain("k-456").doesNotContain("p-789");
		assertThat(stored.split("\\[REDACTED\\]", -1)).hasSize(4);
	}

	@Test
	void namesThatAreLikelyCredentialsAreRedactedByDefault() {
		String stored = Redaction.defaults()
			.redact("{\"apiToken\":\"at-1111\",\"githubToken\":\"ghp_2222\",\"stripeApiKey\":\"sk_3333\","
					+ "\"dbPassword\":\"pw-4444\",\"clientKey\":\"ck-5555\",\"aws_credentials_file\":\"cf-6666\","
					+ "\"WEBHOOK-SECRET\":\"ws-7777\",\"secretaryName\":\"Ann Lee\",\"maxTokens\":512,"
					+ "\"keyword\":\"pump\",\"tokenizer\":\"bpe\"}", Set.of());

		assertThat(stored).doesNotContain("at-1111", "ghp_2222", "sk_3333", "pw-4444", "ck-5555", "cf-6666", "ws-7777");
		assertThat(stored).contains("Ann Lee", "512", "pump", "bpe");
		assertThat(Redaction.defaults().redacts("stripe_api_key")).isTrue();
		assertThat(Redaction.defaults().redacts("secretaryName")).isFalse();
	}

	/**
	 * Each name's answer is kept for the names met again on every call; it is the same answer for a name met
	 * once, met again, met after more names than are kept, and longer than a kept name may be.
	 */
	@Test
	void aNameIsAnsweredAlikeFirstAgainAndBeyondTheNamesKept() {
		Redaction redaction = Redaction.defaults();
		String longSecret = "x".repeat(100) + "_token";
		String longPlain = "x".repeat(100) + "_count";
		for (int round = 0; round < 2; round++) {
			for (int n = 0; n < 3000; n++) {
				assertThat(redaction.redacts("field" + n)).isFalse();
				assertThat(redaction.redacts("field" + n + "_secret")).isTrue();
			}
			assertThat(redaction.redacts(longSecret)).isTrue();
			assertThat(redaction.redacts(longPlain)).isFalse();
			assertThat(redaction.redact("{\"accessToken\":\"t-1\",\"name\":\"n\"}", Set.of()))
				.isEqualTo("{\"accessToken\":\"[REDACTED]\",\"name\":\"n\"}");
			// A name a call marks sensitive is that call's, never kept for the next.
			assertThat(redaction.redact("{\"pin\":\"1234\"}", Set.of("pin"))).isEqualTo("{\"pin\":\"[REDACTED]\"}");
			assertThat(redaction.redact("{\"pin\":\"1234\"}", Set.of())).isEqualTo("{\"pin\":\"1234\"}");
			// A result is checked against the listed names alone: a name likely a credential is kept there.
			assertThat(redaction.namesAListedSecret("{\"nextPageToken\":\"p\"}", Set.of())).isFalse();
			assertThat(redaction.namesAListedSecret("{\"password\":\"p\"}", Set.of())).isTrue();
			assertThat(redaction.namesASecret("{\"nextPageToken\":\"p\"}", Set.of())).isTrue();
		}
	}

	@Test
	void likelyCredentialsAreRedactedBesideAConfiguredList() {
		Redaction redaction = Redaction.likelyCredentialsAnd(List.of("pin"));

		assertThat(redaction.redacts("PIN")).isTrue();
		assertThat(redaction.redacts("githubToken")).isTrue();
		assertThat(redaction.redacts("pinned")).isFalse();
		assertThat(redaction.scrub("GET /repos?token=ghp_abcdef failed", "{\"githubToken\":\"ghp_abcdef\"}", Set.of()))
			.isEqualTo("GET /repos?token=[REDACTED] failed");
	}

	@Test
	void aResultIsCheckedAgainstTheListedNamesOnlySoItsKeysAndPageTokensAreKept() {
		Redaction redaction = Redaction.defaults();
		String issue = "{\"key\":\"PROJ-123\",\"nextPageToken\":\"p-2\",\"fields\":{\"issueKey\":\"PROJ-123\"}}";

		assertThat(redaction.namesAListedSecret(issue, Set.of())).isFalse();
		assertThat(redaction.namesASecret(issue, Set.of())).as("as arguments they are redacted").isTrue();
		assertThat(redaction.namesAListedSecret("{\"session\":{\"token\":\"t-1\"}}", Set.of())).isTrue();
		assertThat(redaction.namesAListedSecret("{\"pin\":\"1234\"}", Set.of("pin"))).isTrue();
	}

	@Test
	void theConfiguredListIsTheSetOfNames() {
		Redaction redaction = Redaction.of(List.of("pin"));

		assertThat(redaction.redacts("PIN")).isTrue();
		assertThat(redaction.redacts("pinned")).isFalse();
		assertThat(redaction.redacts("password")).isFalse();
		assertThat(redaction.redact("{\"pin\":\"1234\",\"spinner\":\"x\"}", Set.of())).contains("\"spinner\":\"x\"")
			.doesNotContain("1234");
	}

	@Test
	void namesACallMarksSensitiveAreRedactedToo() {
		assertThat(Redaction.none().redact("{\"iban\":\"DE89370400440532013000\"}", Set.of("iban")))
			.doesNotContain("DE89");
	}

	@Test
	void valuesRedactionRemovesAreScrubbedFromErrorText() {
		String arguments = "{\"account\":\"Acme\",\"apiKey\":\"sk_live_abc123\",\"auth\":{\"token\":\"tok-987654\"},\"pin\":\"12\"}";
		String error = "GET /charges?api_key=sk_live_abc123&t=tok-987654 for Acme failed";

		String scrubbed = Redaction.defaults().scrub(error, arguments, Set.of("pin"));

		assertThat(scrubbed).isEqualTo("GET /charges?api_key=[REDACTED]&t=[REDACTED] for Acme failed");
	}

	@Test
	void shortRedactedValuesAreNotScrubbedSinceTheyWouldMatchTooMuch() {
		assertThat(Redaction.defaults().scrub("error 12 at line 12", "{\"token\":\"12\"}", Set.of()))
			.isEqualTo("error 12 at line 12");
	}

	@Test
	void aSecretMemberSentAsNullStaysNullSinceItHidesNothing() {
		String stored = Redaction.defaults()
			.redact("{\"account\":\"acme\",\"apiKey\":null,\"login\":{\"user\":\"ada\",\"password\":null},"
					+ "\"token\":\"t-1234\"}", Set.of());

		assertThat(stored).isEqualTo("{\"account\":\"acme\",\"apiKey\":null,\"login\":{\"user\":\"ada\",\"password\":null},"
				+ "\"token\":\"[REDACTED]\"}");
		assertThat(Redaction.defaults().redact("{\"apiKey\":null}", Set.of())).isEqualTo("{\"apiKey\":null}");
	}

	@Test
	void valuesAreScrubbedFromErrorTextAlsoWhereJsonQuotesThemEscaped() {
		String arguments = "{\"apiKey\":\"sk-\\\"q\\\"\\\\1/2\"}";
		String error = "400 on POST /v1 with body {\"api_key\":\"sk-\\\"q\\\"\\\\1/2\"}; as sent: sk-\"q\"\\1/2;"
				+ " quoted by PHP: sk-\\\"q\\\"\\\\1\\/2";

		assertThat(Redaction.defaults().scrub(error, arguments, Set.of()))
			.isEqualTo("400 on POST /v1 with body {\"api_key\":\"[REDACTED]\"}; as sent: [REDACTED]; quoted by PHP: [REDACTED]");
	}

	@Test
	void jsonTextInAResultsStringsIsReadAsJsonAndTextThatIsNotJsonIsText() {
		Redaction redaction = Redaction.defaults();
		JsonMapper json = new JsonMapper();
		String token = json.writeValueAsString(Map.of("account", "acme", "accessToken", "t-1"));
		String mcpReply = json.writeValueAsString(Map.of("content",
				List.of(Map.of("type", "text", "text", " " + json.writeValueAsString(List.of(Map.of("apiKey", 1)))))));
		String twice = json.writeValueAsString(Map.of("body",
				json.writeValueAsString(Map.of("inner", json.writeValueAsString(Map.of("password", "p"))))));

		assertThat(redaction.namesAListedSecret(json.writeValueAsString(token), Set.of()))
			.as("a text result that is a JSON object").isTrue();
		assertThat(redaction.namesAListedSecret(mcpReply, Set.of())).as("a member's text that is a JSON array").isTrue();
		assertThat(redaction.namesAListedSecret(twice, Set.of())).as("JSON text inside JSON text").isTrue();
		assertThat(redaction.namesAListedSecret(json.writeValueAsString("{\"token\": cut short"), Set.of()))
			.as("not JSON: text").isFalse();
		assertThat(redaction.namesAListedSecret(json.writeValueAsString("the token is in the vault"), Set.of())).isFalse();
		assertThat(redaction.namesAListedSecret(json.writeValueAsString(json.writeValueAsString(Map.of("key", "PROJ-1"))),
				Set.of()))
			.as("the likely-credential rule is left out inside text too").isFalse();
	}

	@Test
	void aResultQuotesARedactedValueHoweverItsJsonEscapesIt() {
		Redaction redaction = Redaction.defaults();
		String arguments = "{\"account\":\"acme\",\"apiKey\":\"clé-\\\"secrète\\\"/1\"}";
		String secret = "clé-\"secrète\"/1";
		JsonMapper plain = new JsonMapper();
		JsonMapper escaping = JsonMapper.builder()
			.enable(JsonWriteFeature.ESCAPE_NON_ASCII)
			.enable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
			.build();

		for (JsonMapper mapper : List.of(plain, escaping)) {
			assertThat(redaction.quotesARedactedValue(mapper.writeValueAsString("connected with " + secret), arguments,
					Set.of())).isTrue();
			String text = mapper.writeValueAsString(Map.of("used", secret));
			assertThat(redaction.quotesARedactedValue(mapper.writeValueAsString(List.of(text)), arguments, Set.of()))
				.as("in JSON text inside a string").isTrue();
			assertThat(redaction.quotesARedactedValue(mapper.writeValueAsString(Map.of(secret, 1)), arguments,
					Set.of())).as("as a member name").isTrue();
		}
		assertThat(redaction.quotesARedactedValue("{\"account\":\"acme\"}", arguments, Set.of())).isFalse();
		assertThat(redaction.quotesARedactedValue("{\"pin\":\"1234\"}", "{\"pin\":\"1234\"}", Set.of("pin"))).isTrue();
		assertThat(redaction.quotesARedactedValue("{\"n\":4242}", "{\"pin\":4242}", Set.of("pin"))).isTrue();
	}

}
