package io.idempotency.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.idempotency.sample.web.LedgerView;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the page asks of the sample over HTTP: "Run the reconciler now", pressed right after a ticket call timed
 * out, settles that call (the page says it does); the page's icon is there.
 */
class PageApiTest extends SampleAppTest {

	private static final JsonMapper JSON = new JsonMapper();

	@LocalServerPort
	int port;

	@Autowired
	LedgerView ledger;

	@Test
	void runningTheReconcilerRightAfterATimeoutSettlesTheCall() throws Exception {
		assertThat(send("POST", "/api/faults", "{\"service\": \"tickets\", \"fault\": \"TIMEOUT_AFTER_EFFECT\"}")
			.statusCode()).isEqualTo(200);
		HttpResponse<String> chat = send("POST", "/api/chat", "{\"message\": \"open a ticket for the valve leak\"}");
		assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
		JsonNode transcript = JSON.readTree(chat.body()).path("transcript");
		String runId = transcript.path("runId").asString();
		List<String> outcomes = new ArrayList<>();
		transcript.path("calls").forEach((call) -> outcomes.add(call.path("outcome").asString()));
		assertThat(outcomes).containsExactly("error", "in_progress", "in_progress");
		assertThat(transcript.path("calls").get(0).path("modelRead").asString()).doesNotEndWith("null")
			.contains("did not answer within 2 s");

		HttpResponse<String> reconciled = send("POST", "/api/reconcile", "{}");

		assertThat(reconciled.statusCode()).as(reconciled.body()).isEqualTo(200);
		JsonNode result = JSON.readTree(reconciled.body());
		List<JsonNode> ofRun = new ArrayList<>();
		result.path("calls").forEach((call) -> {
			if (call.path("runId").asString().equals(runId)) {
				ofRun.add(call);
			}
		});
		assertThat(ofRun).as(reconciled.body()).singleElement().satisfies((call) -> {
			assertThat(call.path("tool").asString()).isEqualTo("open_ticket");
			assertThat(call.path("status").asString()).isEqualTo("succeeded");
		});
		assertThat(result.path("message").asString()).contains("open_ticket of run " + runId + ": settled as succeeded");
		assertThat(this.ledger.ofRun(runId)).singleElement().satisfies((row) -> {
			assertThat(row.status()).isEqualTo("succeeded");
			assertThat(row.reconciled()).isTrue();
		});
	}

	@Test
	void thePageHasAnIcon() throws Exception {
		HttpResponse<String> icon = send("GET", "/favicon.ico", null);
		assertThat(icon.statusCode()).isEqualTo(200);
		assertThat(icon.headers().firstValue("Content-Type")).hasValueSatisfying((type) -> assertThat(type).contains("icon"));
	}

	private HttpResponse<String> send(String method, String path, String json) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.timeout(Duration.ofSeconds(60));
		if (json != null) {
			request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
		}
		else {
			request.method(method, HttpRequest.BodyPublishers.noBody());
		}
		return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
