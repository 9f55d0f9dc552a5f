package io.idempotency.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.idempotency.sample.agent.Agent;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator of the sample sees over HTTP: health with the ledger's indicator, the ledger's report and
 * the calls' metrics, each linked from the page.
 */
class ActuatorTest extends SampleAppTest {

	private static final JsonMapper JSON = new JsonMapper();

	@LocalServerPort
	int port;

	@Autowired
	Agent agent;

	@Test
	void healthShowsTheLedgersIndicatorUp() throws Exception {
		HttpResponse<String> health = get("/actuator/health");
		assertThat(health.statusCode()).isEqualTo(200);
		JsonNode idempotency = JSON.readTree(health.body()).path("components").path("idempotency");
		assertThat(idempotency.path("status").asString()).isEqualTo("UP");
		assertThat(idempotency.path("details").has("replayRate")).isTrue();
		assertThat(idempotency.path("details").has("warning")).isTrue();
		assertThat(get("/actuator/health/idempotency").statusCode()).isEqualTo(200);
	}

	@Test
	void theLedgersReportAndTheMetricsAnswer() throws Exception {
		this.agent.ask("open a ticket for the seal failure");

		HttpResponse<String> report = get("/actuator/idempotency");
		assertThat(report.statusCode()).isEqualTo(200);
		JsonNode body = JSON.readTree(report.body());
		assertThat(body.path("table").asString()).isEqualTo("tool_audit");
		assertThat(body.path("answersSinceStart").path("replayed").asLong()).isPositive();

		HttpResponse<String> calls = get("/actuator/metrics/idempotency.tool.call");
		assertThat(calls.statusCode()).isEqualTo(200);
		assertThat(calls.body()).contains("\"idempotency.outcome\"").contains("replayed");
		HttpResponse<String> replayed = get("/actuator/metrics/idempotency.tool.call?tag=idempotency.outcome:replayed");
		assertThat(JSON.readTree(replayed.body()).path("measurements").valueStream()
			.filter((measurement) -> measurement.path("statistic").asString().equals("COUNT"))
			.map((count) -> count.path("value").asDouble())).singleElement().satisfies((count) -> assertThat(count).isPositive());
	}

	@Test
	void thePageLinksToEachAndEachAnswers() throws Exception {
		HttpResponse<String> page = get("/");
		assertThat(page.statusCode()).isEqualTo(200);
		List<String> links = new ArrayList<>();
		Matcher link = Pattern.compile("href=\"(/actuator/[^\"]+)\"").matcher(page.body());
		while (link.find()) {
			links.add(link.group(1));
		}
		assertThat(links).contains("/actuator/health", "/actuator/idempotency");
		this.agent.ask("quote 200 of SKU-4411 for Henderson Industrial");
		for (String path : links) {
			assertThat(get(path).statusCode()).as(path).isEqualTo(200);
		}
	}

	private HttpResponse<String> get(String path) throws Exception {
		return HttpClient.newHttpClient()
			.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
				.timeout(Duration.ofSeconds(30))
				.build(), HttpResponse.BodyHandlers.ofString());
	}

}
