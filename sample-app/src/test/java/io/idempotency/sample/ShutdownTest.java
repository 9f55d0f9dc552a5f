package io.idempotency.sample;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample stopped as a person stops it (SIGTERM, as Ctrl-C or {@code kill} sends), on its embedded
 * PostgreSQL, with an MCP client connected: it stops within seconds, and nothing is logged at WARN or ERROR
 * while it does. Before, the client's open session held the web server's graceful shutdown for its 30 s, and
 * the embedded database, stopped at once by a JVM shutdown hook of its own, left the library's heartbeat and
 * reconciler a closed pool meanwhile (Hikari's warnings, the reconciler task's stack trace). The application
 * runs in a JVM of its own, so that its shutdown hooks run as they do for a person, logging to its console.
 */
class ShutdownTest {

	private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");

	private static final Pattern WARN_OR_ERROR = Pattern.compile("^\\S+\\s+(WARN|ERROR) ");

	private static final Duration BOUND = Duration.ofSeconds(10);

	@TempDir
	Path data;

	private Process application;

	private final List<String> log = Collections.synchronizedList(new ArrayList<>());

	@AfterEach
	void stop() {
		if (this.application != null) {
			this.application.destroyForcibly();
		}
	}

	@Test
	void stoppingWithAnMcpClientConnectedIsQuickAndQuiet() throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.application = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				SampleApplication.class.getName(), "--server.port=0", "--sample.data-dir=" + this.data.resolve("postgres"),
				"--logging.config=classpath:logback-console.xml")
			.redirectErrorStream(true)
			.start();
		Thread reader = new Thread(this::readLog, "sample-log");
		reader.setDaemon(true);
		reader.start();
		int port = await().atMost(Duration.ofSeconds(120)).until(this::port, (found) -> found > 0);

		McpSyncClient client = McpClient.sync(HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).build())
			.requestTimeout(Duration.ofSeconds(30))
			.build();
		client.initialize();
		assertThat(client.listTools().tools()).isNotEmpty();
		int stoppedAt = this.log.size();

		Instant stop = Instant.now();
		this.application.destroy();
		boolean exited = this.application.waitFor(60, TimeUnit.SECONDS);
		Duration took = Duration.between(stop, Instant.now());
		reader.join(5000);
		client.close();

		List<String> shutdown = List.copyOf(this.log.subList(stoppedAt, this.log.size()));
		assertThat(exited).as("exited within 60 s").isTrue();
		assertThat(took).as(String.join("\n", shutdown)).isLessThan(BOUND);
		assertThat(shutdown).as("logged at WARN or ERROR while stopping")
			.noneMatch((line) -> WARN_OR_ERROR.matcher(line).find());
		assertThat(shutdown).noneMatch((line) -> line.contains("still running after timeout"));
	}

	private void readLog() {
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(this.application.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = lines.readLine(); line != null; line = lines.readLine()) {
				this.log.add(line);
			}
		}
		catch (java.io.IOException ex) {
			// The process ended.
		}
	}

	private int port() {
		assertThat(this.application.isAlive()).as(String.join("\n", this.log)).isTrue();
		synchronized (this.log) {
			for (String line : this.log) {
				Matcher port = PORT.matcher(line);
				if (port.find()) {
					return Integer.parseInt(port.group(1));
				}
			}
		}
		return 0;
	}

}
