package io.idempotency.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operator panel's API: a settlement the library refuses, or a key that is not one, is answered with a
 * 4xx and a message the page shows, never a 500.
 */
class SettlementControllerTest extends SampleAppTest {

	private static final JsonMapper JSON = new JsonMapper();

	private static final String UNKNOWN_KEY = "0".repeat(64);

	@LocalServerPort
	int port;

	@Test
	void theCallsAwaitingAHumanAreAList() throws Exception {
		HttpResponse<String> awaiting = send("GET", "/api/settlements", null);
		assertThat(awaiting.statusCode()).isEqualTo(200);
		assertThat(JSON.readTree(awaiting.body()).isArray()).isTrue();
	}

	@Test
	void aSettlementOfAnUnknownKeyIsRefusedWithItsReason() throws Exception {
		for (String kind : new String[] { "succeeded", "failed", "retry" }) {
			HttpResponse<String> refused = send("POST", "/api/settlements/" + UNKNOWN_KEY + "/" + kind,
					"{\"operator\": \"ops-anna\", \"reason\": \"checked\", \"result\": \"{}\"}");
			assertThat(refused.statusCode()).as(kind).isEqualTo(409);
			JsonNode body = JSON.readTree(refused.body());
			assertThat(body.path("reason").asString()).as(kind).isEqualTo("UNKNOWN_KEY");
			assertThat(body.path("error").asString()).as(kind).contains("nothing was written");
		}
	}

	@Test
	void aSettlementWithoutAnOperatorIsRefused() throws Exception {
		HttpResponse<String> refused = send("POST", "/api/settlements/" + UNKNOWN_KEY + "/failed",
				"{\"operator\": \" \", \"reason\": \"checked\"}");
		assertThat(refused.statusCode()).isEqualTo(409);
		assertThat(JSON.readTree(refused.body()).path("reason").asString()).isEqualTo("MISSING_REASON");
	}

	@Test
	void aKeyThatIsNotOneIsABadRequest() throws Exception {
		HttpResponse<String> bad = send("POST", "/api/settlements/not-a-key/failed",
				"{\"operator\": \"ops-anna\", \"reason\": \"checked\"}");
		assertThat(bad.statusCode()).isEqualTo(400);
		assertThat(JSON.readTree(bad.body()).path("error").asString()).contains("64 lowercase hex characters");
	}

	private HttpResponse<String> send(String method, String path, String json) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(30));
		if (json != null) {
			request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
		}
		else {
			request.method(method, HttpRequest.BodyPublishers.noBody());
		}
		return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
