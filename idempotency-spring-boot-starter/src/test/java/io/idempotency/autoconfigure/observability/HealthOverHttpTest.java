package io.idempotency.autoconfigure.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import javax.sql.DataSource;

import io.idempotency.autoconfigure.QuoteTool;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.FaultyDataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /actuator/health} of a running application, probed over HTTP as a load balancer does, with Boot's
 * default status order and HTTP mapping: what needs a person (no replay over the window, calls waiting for a
 * human) leaves the instance UP and answering 200, with the signal in the details; a ledger that cannot be
 * reached is DOWN and 503.
 */
class HealthOverHttpTest {

	private static final JsonMapper JSON = new JsonMapper();

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		QuoteTool quoteTool(JdbcTemplate jdbc) {
			return new QuoteTool(jdbc);
		}

	}

	/** The application above, on a ledger database that a test can take away. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ApplicationOnAFaultyDatabase {

		@Bean
		FaultyDataSource dataSource() {
			JdbcDataSource h2 = new JdbcDataSource();
			h2.setURL("jdbc:h2:mem:health-unreachable;DB_CLOSE_DELAY=-1");
			return new FaultyDataSource(h2);
		}

		@Bean
		QuoteTool quoteTool(JdbcTemplate jdbc) {
			return new QuoteTool(jdbc);
		}

	}

	record Answer(int status, JsonNode body) {

		JsonNode idempotency() {
			return this.body.path("components").path("idempotency");
		}

	}

	static Answer get(int port, String path) throws Exception {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
				.timeout(Duration.ofSeconds(30))
				.build(), HttpResponse.BodyHandlers.ofString());
		return new Answer(response.statusCode(), JSON.readTree(response.body()));
	}

	static void quote(QuoteTool tool, String runId) {
		QuoteTool.QuoteRequest request = new QuoteTool.QuoteRequest("Henderson", "SKU-4411", 200, null, null);
		RunContext.supply(new Run(runId, "rep-1"), () -> tool.draftQuote(request));
	}

	@Nested
	@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:health-no-replays;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.server.enabled=false", "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-details=always", "idempotency.health.minimum-calls=2" })
	class WhenNoCallWasReplayed {

		@LocalServerPort
		int port;

		@Autowired
		QuoteTool tool;

		@Test
		void theInstanceStaysUpAndTheSignalIsInTheDetails() throws Exception {
			quote(this.tool, "no-replay-1");
			quote(this.tool, "no-replay-2");
			quote(this.tool, "no-replay-3");

			Answer root = get(this.port, "/actuator/health");
			assertThat(root.status()).isEqualTo(200);
			assertThat(root.body().path("status").asString()).isEqualTo("UP");
			JsonNode idempotency = root.idempotency();
			assertThat(idempotency.path("status").asString()).isEqualTo("UP");
			assertThat(idempotency.path("details").path("warning").asBoolean()).isTrue();
			assertThat(idempotency.path("details").path("calls").asLong()).isEqualTo(3);
			assertThat(idempotency.path("details").path("replays").asLong()).isZero();
			assertThat(idempotency.path("details").path("problems").get(0).asString())
				.contains("no call was replayed in 3 calls");

			Answer component = get(this.port, "/actuator/health/idempotency");
			assertThat(component.status()).isEqualTo(200);
			assertThat(component.body().path("status").asString()).isEqualTo("UP");
			assertThat(component.body().path("details").path("warning").asBoolean()).isTrue();
		}

	}

	@Nested
	@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:health-human;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.server.enabled=false", "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-details=always", "idempotency.reconciler.max-attempts=1",
					"idempotency.health.cache-for=0s" })
	class WhenCallsWaitForAHuman {

		@LocalServerPort
		int port;

		@Autowired
		JdbcLedger ledger;

		@Test
		void theInstanceStaysUpAndTheSignalIsInTheDetails() throws Exception {
			assertThat(get(this.port, "/actuator/health").idempotency().path("details").path("warning").asBoolean())
				.isFalse();
			// A call of a tool this application does not have (its reconciler leaves it alone), whose
			// reconcile attempts are used up: it waits for a human.
			String arguments = "{\"amount\":120}";
			this.ledger.claim(new ClaimRequest(IdempotencyKeys.derive("charge_card", arguments, "human-run"),
					"human-run", "rep-1", "charge_card", arguments));
			LedgerEntry leased = this.ledger.leaseStale(Duration.ZERO, 1, Duration.ofMinutes(5)).get(0);
			this.ledger.postpone(leased, Duration.ofDays(1));

			Answer root = get(this.port, "/actuator/health");
			assertThat(root.status()).isEqualTo(200);
			assertThat(root.body().path("status").asString()).isEqualTo("UP");
			JsonNode details = root.idempotency().path("details");
			assertThat(root.idempotency().path("status").asString()).isEqualTo("UP");
			assertThat(details.path("warning").asBoolean()).isTrue();
			assertThat(details.path("awaitingHuman").asLong()).isEqualTo(1);
			assertThat(details.path("problems").get(0).asString()).contains("1 call(s) could not be reconciled");
			Answer component = get(this.port, "/actuator/health/idempotency");
			assertThat(component.status()).isEqualTo(200);
			assertThat(component.body().path("status").asString()).isEqualTo("UP");
		}

	}

	@Nested
	@SpringBootTest(classes = ApplicationOnAFaultyDatabase.class,
			webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
					"management.endpoints.web.exposure.include=health", "management.endpoint.health.show-details=always",
					// Boot's own indicator of the same DataSource would be DOWN too: leave only the ledger's.
					"management.health.db.enabled=false" })
	class WhenTheLedgerCannotBeReached {

		@LocalServerPort
		int port;

		@Autowired
		FaultyDataSource database;

		@Test
		void theInstanceIsDownAtOnceAndUpWhenItIsBack() throws Exception {
			assertThat(get(this.port, "/actuator/health").status()).isEqualTo(200);

			this.database.goAway();
			try {
				Answer root = get(this.port, "/actuator/health");
				assertThat(root.status()).as("within idempotency.health.cache-for of an UP reading").isEqualTo(503);
				assertThat(root.body().path("status").asString()).isEqualTo("DOWN");
				assertThat(root.idempotency().path("status").asString()).isEqualTo("DOWN");
				assertThat(root.idempotency().path("details").path("error").asString()).contains("away");
				assertThat(get(this.port, "/actuator/health/idempotency").status()).isEqualTo(503);
			}
			finally {
				this.database.comeBack();
			}
			assertThat(get(this.port, "/actuator/health").status()).isEqualTo(200);
		}

	}

	@Nested
	@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:health-off;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.server.enabled=false", "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-details=always", "management.health.idempotency.enabled=false" })
	class WhenTheApplicationTurnsItOff {

		@LocalServerPort
		int port;

		@Test
		void healthHasNoIdempotencyComponent() throws Exception {
			Answer root = get(this.port, "/actuator/health");
			assertThat(root.status()).isEqualTo(200);
			assertThat(root.body().path("components").has("db")).isTrue();
			assertThat(root.body().path("components").has("idempotency")).isFalse();
			assertThat(get(this.port, "/actuator/health/idempotency").status()).isEqualTo(404);
		}

	}

}
