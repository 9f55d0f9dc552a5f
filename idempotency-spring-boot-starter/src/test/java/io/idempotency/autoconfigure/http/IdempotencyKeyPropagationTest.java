package io.idempotency.autoconfigure.http;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** Requests sent from inside an idempotent tool carry its key, to a real HTTP server on loopback. */
class IdempotencyKeyPropagationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				JacksonAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
				IdempotentToolsAutoConfiguration.class, IdempotencyHttpClientAutoConfiguration.class,
				RestClientAutoConfiguration.class, RestTemplateAutoConfiguration.class))
		.withBean(QuoteSender.class);

	private HttpServer server;

	private final List<String> keys = new CopyOnWriteArrayList<>();

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/", (exchange) -> {
			this.keys.add(String.valueOf(exchange.getRequestHeaders().getFirst("Idempotency-Key")));
			exchange.getRequestBody().readAllBytes();
			exchange.sendResponseHeaders(204, -1);
			exchange.close();
		});
		this.server.start();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
	}

	public static class QuoteSender {

		private final RestClient restClient;

		private final RestTemplate restTemplate;

		public QuoteSender(RestClient.Builder restClient, RestTemplateBuilder restTemplate) {
			this.restClient = restClient.build();
			this.restTemplate = restTemplate.build();
		}

		@IdempotentTool(name = "send_quote", reconcile = "findSent")
		public void sendQuote(String url) {
			this.restClient.post().uri(url).retrieve().toBodilessEntity();
			this.restTemplate.postForEntity(url, null, Void.class);
		}

		Reconciliation<Void> findSent(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		/** Two different requests of one call: a customer, then a quote for it. */
		@IdempotentTool(name = "send_two", reconcile = "findSent")
		public void sendTwo(String url) {
			this.restClient.post().uri(url + "/customers").body("{\"name\":\"Acme\"}").retrieve().toBodilessEntity();
			this.restClient.post().uri(url + "/quotes").body("{\"sku\":\"SKU-4411\"}").retrieve().toBodilessEntity();
			// A retry of the first request, as an HTTP client's retry sends it.
			this.restClient.post().uri(url + "/customers").body("{\"name\":\"Acme\"}").retrieve().toBodilessEntity();
		}

		public void sendOutsideATool(String url) {
			this.restClient.post().uri(url).retrieve().toBodilessEntity();
		}

	}

	private String server() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	private String url() {
		return server() + "/quotes";
	}

	@Test
	void requestsFromInsideAToolCarryItsKey() {
		this.runner.run((context) -> {
			QuoteSender sender = context.getBean(QuoteSender.class);
			RunContext.run(new Run("r1", "rep-1"), () -> sender.sendQuote(url()));
			sender.sendOutsideATool(url());

			IdempotencyKey key = IdempotencyKeys.derive("send_quote", Map.of("url", url()), "r1");
			String header = key.forRequest("POST", URI.create(url()), null);
			assertThat(this.keys).containsExactly(header, header, "null");
			assertThat(header).matches("[0-9a-f]{64}").isNotEqualTo(key.value());
		});
	}

	@Test
	void eachDifferentRequestOfOneCallCarriesItsOwnKeyAndARetryTheSame() {
		this.runner.run((context) -> {
			QuoteSender sender = context.getBean(QuoteSender.class);
			RunContext.run(new Run("r1", "rep-1"), () -> sender.sendTwo(server()));
			RunContext.run(new Run("r2", "rep-1"), () -> sender.sendTwo(server()));

			assertThat(this.keys).hasSize(6).doesNotContain("null");
			assertThat(this.keys.get(0)).isEqualTo(this.keys.get(2)).isNotEqualTo(this.keys.get(1));
			assertThat(this.keys.get(3)).isEqualTo(this.keys.get(5)).isNotEqualTo(this.keys.get(4));
			assertThat(this.keys.subList(3, 6)).doesNotContainAnyElementsOf(this.keys.subList(0, 3));
			IdempotencyKey key = IdempotencyKeys.derive("send_two", Map.of("url", server()), "r1");
			assertThat(this.keys.get(1)).isEqualTo(key.forRequest("POST", URI.create(server() + "/quotes"),
					"{\"sku\":\"SKU-4411\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		});
	}

	@Test
	void propagationCanBeTurnedOff() {
		this.runner.withPropertyValues("idempotency.http.propagate-key=false").run((context) -> {
			QuoteSender sender = context.getBean(QuoteSender.class);
			RunContext.run(new Run("r1", "rep-1"), () -> sender.sendQuote(url()));
			assertThat(this.keys).containsExactly("null", "null");
		});
	}

}
