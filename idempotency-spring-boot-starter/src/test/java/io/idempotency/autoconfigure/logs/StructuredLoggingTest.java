package io.idempotency.autoconfigure.logs;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.idempotency.key.IdempotencyKeys;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Boot's structured logging shows the library's fields: {@link StructuredLoggingApplication} runs as
 * any application does, with {@code logging.structured.format.console=ecs} and
 * {@code logging.structured.format.file=logstash}, and the JSON it writes carries the tool, key, run, outcome,
 * status and attempts of the advice's and the reconciler's events as fields of their own (ECS nests the dotted
 * names: {@code "idempotency":{"tool":...}}; Logstash keeps them flat: {@code "idempotency.tool"}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StructuredLoggingTest {

	private static final Path OUTPUT = Path.of("target", "structured-logging");

	private static final String NOTICE_KEY = IdempotencyKeys
		.derive("send_notice", "{\"to\":\"ops@example.com\"}", StructuredLoggingApplication.RUN)
		.value();

	private static final String BELL_KEY = IdempotencyKeys
		.derive("ring_bell", "{\"bell\":\"front\"}", StructuredLoggingApplication.RUN)
		.value();

	private final JsonMapper json = new JsonMapper();

	private List<JsonNode> ecs;

	private List<JsonNode> logstash;

	@BeforeAll
	void runTheApplication() throws Exception {
		Files.createDirectories(OUTPUT);
		Path console = OUTPUT.resolve("console.json");
		Path file = OUTPUT.resolve("application.log");
		Files.deleteIfExists(console);
		Files.deleteIfExists(file);
		List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-cp", applicationClassPath(),
				StructuredLoggingApplication.class.getName(),
				"--spring.datasource.url=jdbc:h2:mem:structured-logging;DB_CLOSE_DELAY=-1",
				"--idempotency.jdbc.initialize-schema=always", "--idempotency.reconciler.stale-after=1ms",
				"--idempotency.reconciler.interval=1h", "--idempotency.reconciler.max-attempts=1",
				"--logging.structured.format.console=ecs", "--logging.structured.format.file=logstash",
				"--logging.file.name=" + file));
		Process application = new ProcessBuilder(command).redirectOutput(console.toFile())
			.redirectError(OUTPUT.resolve("stderr.log").toFile())
			.start();
		assertThat(application.waitFor(2, TimeUnit.MINUTES)).as("the application stopped").isTrue();
		assertThat(application.exitValue()).as("its exit code (stderr in %s)", OUTPUT).isZero();
		this.ecs = jsonLines(console);
		this.logstash = jsonLines(file);
	}

	/**
	 * The tests' class path without the tests' own logback configuration (in idempotency-test-support), so that
	 * Boot configures logging with its defaults, as in an application.
	 */
	private static String applicationClassPath() {
		return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("idempotency-test-support"))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private List<JsonNode> jsonLines(Path path) throws IOException {
		return Files.readAllLines(path, StandardCharsets.UTF_8)
			.stream()
			.filter((line) -> line.startsWith("{"))
			.map(this.json::readTree)
			.toList();
	}

	@Test
	void ecsNestsTheFieldsOfAnUnknownOutcomeAResolutionAndAHandOffToAHuman() {
		JsonNode unknown = only(this.ecs, "/message", "Tool 'send_notice' ended with");
		assertThat(unknown.at("/log/level").asString()).isEqualTo("WARN");
		assertThat(unknown.at("/log/logger").asString()).isEqualTo("io.idempotency.advice.IdempotentToolInterceptor");
		assertThat(unknown.at("/idempotency/tool").asString()).isEqualTo("send_notice");
		assertThat(unknown.at("/idempotency/key").asString()).isEqualTo(NOTICE_KEY);
		assertThat(unknown.at("/idempotency/run").asString()).isEqualTo(StructuredLoggingApplication.RUN);
		assertThat(unknown.at("/idempotency/outcome").asString()).isEqualTo("unknown");
		assertThat(unknown.at("/idempotency/error").asString()).isEqualTo("java.net.SocketTimeoutException");

		JsonNode resolved = only(this.ecs, "/message", "reconcile.resolved");
		assertThat(resolved.at("/log/level").asString()).isEqualTo("INFO");
		assertThat(resolved.at("/idempotency/tool").asString()).isEqualTo("send_notice");
		assertThat(resolved.at("/idempotency/key").asString()).isEqualTo(NOTICE_KEY);
		assertThat(resolved.at("/idempotency/run").asString()).isEqualTo(StructuredLoggingApplication.RUN);
		assertThat(resolved.at("/idempotency/status").asString()).isEqualTo("succeeded");
		assertThat(resolved.at("/idempotency/attempts").asInt()).isEqualTo(1);

		JsonNode human = only(this.ecs, "/message", "reconcile.needs_human");
		assertThat(human.at("/log/level").asString()).isEqualTo("ERROR");
		assertThat(human.at("/idempotency/tool").asString()).isEqualTo("ring_bell");
		assertThat(human.at("/idempotency/key").asString()).isEqualTo(BELL_KEY);
		assertThat(human.at("/idempotency/run").asString()).isEqualTo(StructuredLoggingApplication.RUN);
		assertThat(human.at("/idempotency/attempts").asInt()).isEqualTo(1);
		assertThat(human.at("/error/message").asString()).isEqualTo("the bell does not answer");

		JsonNode created = only(this.ecs, "/message", "Created the idempotency ledger table");
		assertThat(created.at("/idempotency/table").asString()).isEqualTo("tool_audit");
		assertThat(created.at("/idempotency/platform").asString()).isEqualTo("h2");
	}

	@Test
	void logstashKeepsTheFieldsFlat() {
		JsonNode unknown = only(this.logstash, "/message", "Tool 'send_notice' ended with");
		assertThat(unknown.get("idempotency.tool").asString()).isEqualTo("send_notice");
		assertThat(unknown.get("idempotency.key").asString()).isEqualTo(NOTICE_KEY);
		assertThat(unknown.get("idempotency.run").asString()).isEqualTo(StructuredLoggingApplication.RUN);
		assertThat(unknown.get("idempotency.outcome").asString()).isEqualTo("unknown");

		JsonNode resolved = only(this.logstash, "/message", "reconcile.resolved");
		assertThat(resolved.get("idempotency.tool").asString()).isEqualTo("send_notice");
		assertThat(resolved.get("idempotency.key").asString()).isEqualTo(NOTICE_KEY);
		assertThat(resolved.get("idempotency.status").asString()).isEqualTo("succeeded");
		assertThat(resolved.get("idempotency.attempts").asInt()).isEqualTo(1);

		JsonNode human = only(this.logstash, "/message", "reconcile.needs_human");
		assertThat(human.get("level").asString()).isEqualTo("ERROR");
		assertThat(human.get("idempotency.tool").asString()).isEqualTo("ring_bell");
		assertThat(human.get("idempotency.key").asString()).isEqualTo(BELL_KEY);
		assertThat(human.get("idempotency.attempts").asInt()).isEqualTo(1);
	}

	@Test
	void theTextStillNamesTheFieldsForAPlainConsole() {
		assertThat(only(this.ecs, "/message", "reconcile.resolved").at("/message").asString())
			.isEqualTo("reconcile.resolved tool=send_notice key=" + NOTICE_KEY + " run="
					+ StructuredLoggingApplication.RUN + " outcome=succeeded attempts=1");
		assertThat(only(this.ecs, "/message", "Tool 'send_notice' ended with").at("/message").asString())
			.contains(NOTICE_KEY, "java.net.SocketTimeoutException", "its outcome is unknown");
	}

	private static JsonNode only(List<JsonNode> events, String pointer, String text) {
		List<JsonNode> found = events.stream().filter((event) -> event.at(pointer).asString().contains(text)).toList();
		assertThat(found).as("events whose %s contains '%s' among %s", pointer, text, events).hasSize(1);
		return found.get(0);
	}

}
