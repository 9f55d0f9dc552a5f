package io.idempotency;

import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The advice's and the reconciler's log events carry their fields as SLF4J key-values, which structured
 * logging (Spring Boot's ECS and Logstash formats) writes as fields of their own; their text still names
 * them for a plain console. Real advice, a real ledger on H2, a real reconciler.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogEventFieldsTest {

	private static final String LEDGER_TABLE = "tool_audit_log_fields_test";

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	private AnnotationConfigApplicationContext context;

	private JdbcLedger ledger;

	private Desk desk;

	private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

	private final List<Logger> watched = List.of(
			(Logger) LoggerFactory.getLogger("io.idempotency.advice.IdempotentToolInterceptor"),
			(Logger) LoggerFactory.getLogger(Reconciler.class));

	/** Tools whose calls end as a test needs them to. */
	public static class Desk {

		@IdempotentTool(name = "send_notice", reconcile = "findNotice")
		public void sendNotice(String to) throws SocketTimeoutException {
			throw new SocketTimeoutException("Read timed out");
		}

		Reconciliation<Void> findNotice(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@IdempotentTool(name = "book_room", reconcile = "findBooking")
		public String bookRoom(String room) {
			return "booking-" + room;
		}

		Reconciliation<String> findBooking(IdempotencyKey key, String room) {
			return Reconciliation.found("booking-" + room);
		}

		@IdempotentTool(name = "ring_bell", reconcile = "askTheBell")
		public void ringBell(String bell) {
		}

		Reconciliation<Void> askTheBell(IdempotencyKey key) {
			throw new IllegalStateException("the bell does not answer");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Tools {

		@Bean
		JdbcLedger ledger(DataSource dataSource) {
			return new JdbcLedger(dataSource, LEDGER_TABLE, Redaction.defaults());
		}

		@Bean
		Desk desk() {
			return new Desk();
		}

	}

	@BeforeEach
	void start() {
		if (this.context == null) {
			LedgerSchema.drop(dataSource, LEDGER_TABLE);
			LedgerSchema.create(dataSource, LEDGER_TABLE);
			this.context = new AnnotationConfigApplicationContext();
			// Shared for the whole test run: the context must not close it.
			this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
			this.context.register(Tools.class);
			this.context.refresh();
			this.ledger = this.context.getBean(JdbcLedger.class);
			this.desk = this.context.getBean(Desk.class);
		}
		new JdbcTemplate(dataSource).update("DELETE FROM " + LEDGER_TABLE);
		this.logged.list.clear();
		this.logged.start();
		this.watched.forEach((logger) -> logger.addAppender(this.logged));
	}

	@AfterEach
	void stopWatching() {
		this.watched.forEach((logger) -> logger.detachAppender(this.logged));
	}

	@AfterAll
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void aCallWhoseOutcomeIsUnknownIsLoggedWithItsToolKeyRunOutcomeAndError() {
		IdempotencyKey key = IdempotencyKeys.derive("send_notice", "{\"to\":\"ops@example.com\"}", "run-unknown");

		assertThatExceptionOfType(SocketTimeoutException.class)
			.isThrownBy(() -> RunContext.call(new Run("run-unknown", null), () -> {
				this.desk.sendNotice("ops@example.com");
				return null;
			}));

		ILoggingEvent event = onlyEvent("its outcome is unknown");
		assertThat(event.getLevel()).isEqualTo(Level.WARN);
		assertThat(fields(event)).containsExactlyInAnyOrderEntriesOf(Map.of("idempotency.tool", "send_notice",
				"idempotency.key", key.value(), "idempotency.run", "run-unknown", "idempotency.outcome", "unknown",
				"idempotency.error", "java.net.SocketTimeoutException"));
		assertThat(event.getFormattedMessage()).contains("'send_notice'", key.value(),
				"java.net.SocketTimeoutException");
	}

	@Test
	void aResolutionIsLoggedWithItsToolKeyRunStatusAndAttempts() {
		IdempotencyKey key = crashed("book_room", "{\"room\":\"blue\"}", "run-resolved");

		await().until(reconciler(10)::reconcile, (pass) -> pass.succeeded() == 1);

		ILoggingEvent event = onlyEvent("reconcile.resolved");
		assertThat(event.getLevel()).isEqualTo(Level.INFO);
		assertThat(fields(event)).containsExactlyInAnyOrderEntriesOf(Map.of("idempotency.tool", "book_room",
				"idempotency.key", key.value(), "idempotency.run", "run-resolved", "idempotency.status", "succeeded",
				"idempotency.attempts", 1));
		assertThat(event.getFormattedMessage()).isEqualTo("reconcile.resolved tool=book_room key=" + key.value()
				+ " run=run-resolved outcome=succeeded attempts=1");
	}

	@Test
	void aPostponementAndTheHandOffToAHumanAreLoggedWithTheirToolKeyRunAndAttempts() {
		IdempotencyKey key = crashed("ring_bell", "{\"bell\":\"front\"}", "run-human");
		Reconciler reconciler = reconciler(2);

		await().until(reconciler::reconcile, (pass) -> pass.postponed() == 1);
		await().until(reconciler::reconcile, (pass) -> pass.awaitingHuman() == 1);

		ILoggingEvent postponed = onlyEvent("reconcile.postponed");
		assertThat(postponed.getLevel()).isEqualTo(Level.WARN);
		assertThat(fields(postponed)).containsExactlyInAnyOrderEntriesOf(Map.of("idempotency.tool", "ring_bell",
				"idempotency.key", key.value(), "idempotency.run", "run-human", "idempotency.attempts", 1,
				"idempotency.retry_in", "PT0.001S"));
		ILoggingEvent handedOver = onlyEvent("reconcile.needs_human");
		assertThat(handedOver.getLevel()).isEqualTo(Level.ERROR);
		assertThat(fields(handedOver)).containsExactlyInAnyOrderEntriesOf(Map.of("idempotency.tool", "ring_bell",
				"idempotency.key", key.value(), "idempotency.run", "run-human", "idempotency.attempts", 2));
		assertThat(handedOver.getFormattedMessage()).startsWith("reconcile.needs_human tool=ring_bell key="
				+ key.value() + " run=run-human attempts=2: ");
		assertThat(handedOver.getThrowableProxy().getMessage()).isEqualTo("the bell does not answer");
	}

	/** A call whose JVM died after its claim: the row stays attempting, for the reconciler. */
	private IdempotencyKey crashed(String tool, String arguments, String runId) {
		IdempotencyKey key = IdempotencyKeys.derive(tool, arguments, runId);
		this.ledger.claim(new ClaimRequest(key, runId, null, tool, arguments));
		return key;
	}

	private Reconciler reconciler(int maxAttempts) {
		return new Reconciler(this.ledger, this.context.getBean(IdempotentToolRegistry.class), new JsonMapper(),
				new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 100, Duration.ofMinutes(5), Duration.ofMillis(1),
						Duration.ofMillis(1), maxAttempts));
	}

	private ILoggingEvent onlyEvent(String text) {
		List<ILoggingEvent> events = this.logged.list.stream()
			.filter((event) -> event.getFormattedMessage().contains(text))
			.toList();
		assertThat(events).as("events logged with '%s' in %s", text, this.logged.list).hasSize(1);
		return events.get(0);
	}

	private static Map<String, Object> fields(ILoggingEvent event) {
		Map<String, Object> fields = new LinkedHashMap<>();
		Optional.ofNullable(event.getKeyValuePairs())
			.orElse(List.of())
			.forEach((KeyValuePair pair) -> fields.put(pair.key, pair.value));
		return fields;
	}

}
