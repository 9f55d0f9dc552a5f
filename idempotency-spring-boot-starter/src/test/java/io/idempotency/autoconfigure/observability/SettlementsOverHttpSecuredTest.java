package io.idempotency.autoconfigure.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

import javax.sql.DataSource;

import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.Refunds;
import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.RefundsAwaitingHuman;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The settlements over HTTP behind Spring Security with HTTP basic, as the operating guide configures it: the
 * authenticated user is who settles, only a user with the operators' role may settle, and one with only the
 * read role may list.
 */
@SpringBootTest(classes = SettlementsOverHttpSecuredTest.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
				"management.endpoints.web.exposure.include=idempotencycalls",
				"management.endpoint.idempotencycalls.access=unrestricted",
				"idempotency.jdbc.initialize-schema=always", "idempotency.reconciler.max-attempts=1",
				"idempotency.reconciler.stale-after=1ms", "idempotency.reconciler.initial-backoff=1ms",
				"idempotency.reconciler.interval=1h" })
class SettlementsOverHttpSecuredTest {

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableWebSecurity
	static class Application {

		@Bean
		DataSource dataSource() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		Refunds refunds() {
			return new Refunds();
		}

		/** Reading the calls needs OPS; settling one needs IDEMPOTENCY_OPERATOR too. */
		@Bean
		SecurityFilterChain actuator(HttpSecurity http) throws Exception {
			http.securityMatcher("/actuator/**")
				.authorizeHttpRequests((requests) -> requests
					.requestMatchers(HttpMethod.POST, "/actuator/idempotencycalls/**")
					.hasRole("IDEMPOTENCY_OPERATOR")
					.anyRequest()
					.hasRole("OPS"))
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/**"));
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("anna").password("{noop}anna-secret").roles("OPS", "IDEMPOTENCY_OPERATOR").build(),
					User.withUsername("victor").password("{noop}victor-secret").roles("OPS").build());
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

	record Answer(int status, JsonNode body) {
	}

	Answer send(String method, String path, String user, Map<String, String> body) throws Exception {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/idempotencycalls" + path))
			.timeout(Duration.ofSeconds(30))
			.method(method, (body != null)
					? HttpRequest.BodyPublishers.ofString(SettlementsOverHttpContractTests.JSON.writeValueAsString(body))
					: HttpRequest.BodyPublishers.noBody());
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		if (user != null) {
			request.header("Authorization", "Basic " + Base64.getEncoder()
				.encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8)));
		}
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(request.build(), HttpResponse.BodyHandlers.ofString());
		String text = response.body();
		return new Answer(response.statusCode(),
				SettlementsOverHttpContractTests.JSON.readTree((text == null || text.isBlank()) ? "{}" : text));
	}

	IdempotencyKey refundAwaitingHuman(String run) {
		return new RefundsAwaitingHuman(this.refunds, this.jdbc, this.reconciler, this.settlements, "tool_audit")
			.book(run, "Acme", 10);
	}

	@Test
	void theAuthenticatedUserIsWhoSettles() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("secured-1");

		Answer settled = send("POST", "/" + key.value(), "anna",
				Map.of("settle", "failed", "reason", "No refund was booked."));

		assertThat(settled.status()).isEqualTo(200);
		assertThat(settled.body().path("settledBy").asString()).isEqualTo("anna");
		assertThat(this.settlements.find(key).orElseThrow().settledBy()).isEqualTo("anna");
		assertThat(this.ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.FAILED);
	}

	@Test
	void anOperatorNamedBesideTheAuthenticatedUserIsRefused() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("secured-2");
		LedgerEntry before = this.ledger.find(key).orElseThrow();

		Answer impersonating = send("POST", "/" + key.value(), "anna",
				Map.of("settle", "failed", "reason", "No refund was booked.", "operator", "ops-ben"));

		assertThat(impersonating.status()).isEqualTo(400);
		assertThat(impersonating.body().path("message").asString()).contains("authenticated user 'anna'");
		assertThat(this.ledger.find(key).orElseThrow()).isEqualTo(before);
		Answer asHerself = send("POST", "/" + key.value(), "anna",
				Map.of("settle", "retry", "reason", "the bank is back", "operator", "anna"));
		assertThat(asHerself.status()).isEqualTo(200);
		assertThat(asHerself.body().path("settledBy").asString()).isEqualTo("anna");
	}

	@Test
	void aUserWithoutTheOperatorsRoleMayListButNotSettleAndNoUserMayDoEither() throws Exception {
		IdempotencyKey key = refundAwaitingHuman("secured-3");
		LedgerEntry before = this.ledger.find(key).orElseThrow();

		assertThat(send("GET", "", "victor", null).status()).isEqualTo(200);
		assertThat(send("GET", "/" + key.value(), "victor", null).status()).isEqualTo(200);
		assertThat(send("POST", "/" + key.value(), "victor",
				Map.of("settle", "failed", "reason", "No refund was booked.", "operator", "victor"))
			.status()).isEqualTo(403);
		assertThat(send("GET", "", null, null).status()).isEqualTo(401);
		assertThat(send("POST", "/" + key.value(), null,
				Map.of("settle", "failed", "reason", "No refund was booked.", "operator", "ops-anna"))
			.status()).isEqualTo(401);

		assertThat(this.ledger.find(key).orElseThrow()).isEqualTo(before);
		assertThat(this.settlements.find(key).orElseThrow().settledBy()).isNull();
	}

}
