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

import io.idempotency.AwaitingApprovalException;
import io.idempotency.autoconfigure.observability.ApprovalsOverHttpContractTests.Payments;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Approvals;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The approvals over HTTP behind Spring Security with HTTP basic, as the settlements are: the authenticated user
 * is who decides, only a user with the operators' role may decide, and one with only the read role may list.
 */
@SpringBootTest(classes = ApprovalsOverHttpSecuredTest.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
				"management.endpoints.web.exposure.include=idempotencyapprovals",
				"management.endpoint.idempotencyapprovals.access=unrestricted",
				"idempotency.jdbc.table-name=tool_audit_approve_secured", "idempotency.jdbc.initialize-schema=always",
				"idempotency.reconciler.interval=1h" })
class ApprovalsOverHttpSecuredTest {

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableWebSecurity
	static class Application {

		@Bean
		DataSource dataSource() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		Payments payments() {
			return new Payments();
		}

		/** Reading needs OPS; deciding needs IDEMPOTENCY_OPERATOR too. */
		@Bean
		SecurityFilterChain actuator(HttpSecurity http) throws Exception {
			http.securityMatcher("/actuator/**")
				.authorizeHttpRequests((requests) -> requests
					.requestMatchers(HttpMethod.POST, "/actuator/idempotencyapprovals/**")
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
	Payments payments;

	@Autowired
	Approvals approvals;

	@Autowired
	JdbcTemplate jdbc;

	record Answer(int status, JsonNode body) {
	}

	Answer send(String method, String path, String user, Map<String, String> body) throws Exception {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/idempotencyapprovals" + path))
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

	IdempotencyKey awaiting(String run) {
		assertThatExceptionOfType(AwaitingApprovalException.class)
			.isThrownBy(() -> RunContext.supply(new Run(run, "clerk"), () -> this.payments.payInvoice(run, 10)));
		return new IdempotencyKey(this.jdbc.queryForObject(
				"SELECT idempotency_key FROM tool_audit_approve_secured WHERE run_id = ?", String.class, run));
	}

	@Test
	void theAuthenticatedUserIsWhoDecidesAndNoOtherNameIsTaken() throws Exception {
		IdempotencyKey key = awaiting("secured-approve-1");

		Answer impersonating = send("POST", "/" + key.value(), "anna",
				Map.of("decision", "approve", "reason", "fine", "operator", "ops-ben"));
		assertThat(impersonating.status()).isEqualTo(400);
		assertThat(impersonating.body().path("message").asString()).contains("authenticated user 'anna'");
		assertThat(this.approvals.find(key).orElseThrow().isAwaiting()).isTrue();

		Answer approved = send("POST", "/" + key.value(), "anna", Map.of("decision", "approve", "reason", "fine"));
		assertThat(approved.status()).isEqualTo(200);
		assertThat(approved.body().path("decidedBy").asString()).isEqualTo("anna");
		assertThat(this.approvals.find(key).orElseThrow().entry().status()).isEqualTo(LedgerStatus.APPROVED);
	}

	@Test
	void aUserWithoutTheOperatorsRoleMayListButNotDecideAndNoUserMayDoEither() throws Exception {
		IdempotencyKey key = awaiting("secured-approve-2");

		assertThat(send("GET", "", "victor", null).status()).isEqualTo(200);
		assertThat(send("GET", "/" + key.value(), "victor", null).status()).isEqualTo(200);
		assertThat(send("POST", "/" + key.value(), "victor",
				Map.of("decision", "approve", "reason", "fine", "operator", "victor"))
			.status()).isEqualTo(403);
		assertThat(send("GET", "", null, null).status()).isEqualTo(401);
		assertThat(send("POST", "/" + key.value(), null,
				Map.of("decision", "approve", "reason", "fine", "operator", "ops-anna"))
			.status()).isEqualTo(401);
		assertThat(this.approvals.find(key).orElseThrow().isAwaiting()).isTrue();
	}

}
