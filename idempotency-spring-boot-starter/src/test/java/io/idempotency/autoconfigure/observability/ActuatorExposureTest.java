package io.idempotency.autoconfigure.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import io.idempotency.autoconfigure.QuoteTool;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a web application with the starter shows over HTTP: nothing of the ledger unless the application
 * exposes it, never an argument value or a result, and health details only as Boot's
 * {@code management.endpoint.health.show-details} allows.
 */
class ActuatorExposureTest {

	/** A distinctive argument value and the result it produces: neither may appear over HTTP. */
	static final String PRIVATE_NOTE = "private-note-for-the-customer-only";

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		QuoteTool quoteTool(JdbcTemplate jdbc) {
			return new QuoteTool(jdbc);
		}

	}

	static String get(int port, String path) throws Exception {
		HttpResponse<String> response = HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
					HttpResponse.BodyHandlers.ofString());
		return response.statusCode() + " " + response.body();
	}

	static void call(QuoteTool tool) {
		QuoteTool.QuoteRequest request = new QuoteTool.QuoteRequest("Henderson", "SKU-4411", 200, null, PRIVATE_NOTE);
		RunContext.supply(new Run("exposure-run", "rep-1"), () -> tool.draftQuote(request));
		RunContext.supply(new Run("exposure-run", "rep-1"), () -> tool.draftQuote(request));
	}

	@Nested
	@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:exposure-default;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.server.enabled=false" })
	class ByDefault {

		@LocalServerPort
		int port;

		@Autowired
		QuoteTool tool;

		@Test
		void theEndpointIsNotExposedAndHealthShowsNoDetails() throws Exception {
			call(this.tool);
			assertThat(get(this.port, "/actuator/idempotency")).startsWith("404");
			assertThat(get(this.port, "/actuator/idempotencycalls")).startsWith("404");
			String health = get(this.port, "/actuator/health");
			assertThat(health).startsWith("200").doesNotContain("idempotency").doesNotContain("replays");
		}

	}

	@Nested
	@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = { "spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:exposure-on;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.server.enabled=false", "management.endpoints.web.exposure.include=health,idempotency",
					"management.endpoint.health.show-details=always" })
	class WhenTheApplicationExposesIt {

		@LocalServerPort
		int port;

		@Autowired
		QuoteTool tool;

		@Test
		void theEndpointShowsCountsButNoArgumentOrResult() throws Exception {
			call(this.tool);
			String report = get(this.port, "/actuator/idempotency");
			assertThat(report).startsWith("200").contains("\"replays\"").contains("rowsByStatus");
			assertThat(report).doesNotContain(PRIVATE_NOTE).doesNotContain("SKU-4411").doesNotContain("Henderson");
			assertThat(get(this.port, "/actuator/idempotencycalls")).as("the settlements are exposed apart")
				.startsWith("404");
			String health = get(this.port, "/actuator/health");
			assertThat(health).startsWith("200").contains("\"idempotency\"").contains("\"replays\"");
			assertThat(health).doesNotContain(PRIVATE_NOTE).doesNotContain("SKU-4411");
		}

	}

}
