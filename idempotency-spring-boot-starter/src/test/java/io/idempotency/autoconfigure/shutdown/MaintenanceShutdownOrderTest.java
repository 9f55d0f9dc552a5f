package io.idempotency.autoconfigure.shutdown;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.idempotency.autoconfigure.QuoteTool;
import io.idempotency.autoconfigure.QuoteTool.QuoteRequest;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * On shutdown the web server first lets the requests in progress finish (Boot's graceful shutdown); the ledger's
 * maintenance stops only after it, so that a tool call those requests still make is beaten for while its outcome
 * waits to be written, and that outcome is written before the heartbeat stops.
 */
class MaintenanceShutdownOrderTest {

	@Test
	void aCallThatARequestMakesWhileTheWebServerDrainsIsBeatenForAndItsOutcomeWritten() throws Exception {
		String database = "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.properties("spring.main.banner-mode=off", "server.port=0", "server.shutdown=graceful",
					"spring.datasource.url=" + database, "idempotency.heartbeat.interval=100ms",
					"idempotency.outcome-write-behind.enabled=true", "idempotency.outcome-write-behind.delay=1h")
			.run();
		Thread closing = new Thread(context::close, "closing");
		try {
			Quotes quotes = context.getBean(Quotes.class);
			int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
			CompletableFuture<HttpResponse<String>> response = HttpClient.newHttpClient()
				.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/quotes")).build(),
						HttpResponse.BodyHandlers.ofString());
			assertThat(quotes.entered.await(30, TimeUnit.SECONDS)).isTrue();

			closing.start();
			// The graceful shutdown has begun once the server takes no new connection: the call is made after it.
			await().atMost(Duration.ofSeconds(30)).until(() -> refusesConnections(port));
			quotes.released.countDown();

			assertThat(response.get(60, TimeUnit.SECONDS).body())
				.isEqualTo("quote for Henderson Industrial; beaten for while the server drained: true");
			closing.join(TimeUnit.SECONDS.toMillis(60));
			assertThat(closing.isAlive()).isFalse();
			// Its outcome waited behind it (for an hour) and was written when the maintenance stopped.
			JdbcTemplate table = new JdbcTemplate(new DriverManagerDataSource(database, "sa", ""));
			assertThat(table.queryForList("SELECT status FROM tool_audit", String.class)).containsExactly("succeeded");
			table.execute("SHUTDOWN");
		}
		finally {
			if (!closing.isAlive()) {
				context.close();
			}
		}
	}

	private static boolean refusesConnections(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
			return false;
		}
		catch (IOException ex) {
			return true;
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Quotes.class)
	static class Application {

		@Bean
		QuoteTool quoteTool(JdbcTemplate jdbc) {
			return new QuoteTool(jdbc);
		}

	}

	/** A request that waits to be let go, then makes a tool call and says whether its row is beaten for. */
	@RestController
	static class Quotes {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch released = new CountDownLatch(1);

		private final QuoteTool tool;

		private final JdbcTemplate jdbc;

		Quotes(QuoteTool tool, JdbcTemplate jdbc) {
			this.tool = tool;
			this.jdbc = jdbc;
		}

		@GetMapping("/quotes")
		String quote() throws InterruptedException {
			this.entered.countDown();
			if (!this.released.await(30, TimeUnit.SECONDS)) {
				return "not released";
			}
			String quote = RunContext.supply(new Run("r1", "rep-1"), () -> this.tool.draftQuote(
					new QuoteRequest("Henderson Industrial", "SKU-4411", 200, LocalDate.of(2026, 12, 18), null)));
			// Its outcome waits to be written; meanwhile the heartbeat marks its row as still running.
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> this.jdbc.queryForObject(
						"SELECT COUNT(*) FROM tool_audit WHERE heartbeat_at IS NOT NULL", Integer.class) == 1);
				return quote + "; beaten for while the server drained: true";
			}
			catch (ConditionTimeoutException ex) {
				return quote + "; beaten for while the server drained: false";
			}
		}

	}

}
