package io.idempotency.autoconfigure.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.AwaitingApprovalException;
import io.idempotency.IdempotentTool;
import io.idempotency.NotApprovedException;
import io.idempotency.Reconciliation;
import io.idempotency.autoconfigure.IdempotencyMaintenance;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.ApprovalDecidedEvent;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.Approvals;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A person's approval before the effect, over HTTP, {@code /actuator/idempotencyapprovals}, through Boot's web
 * stack, a real HTTP client and a real ledger: listing the calls that wait, approving and rejecting them,
 * refusals that write nothing, two decisions at once, a decision racing the expiry, the events, the meters and
 * health. A subclass names the database ({@code test.database}).
 */
@SpringBootTest(classes = ApprovalsOverHttpContractTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
				"management.endpoints.web.exposure.include=idempotencyapprovals,health",
				"management.endpoint.idempotencyapprovals.access=unrestricted",
				"management.endpoint.health.show-details=always", "idempotency.health.cache-for=0s",
				"idempotency.jdbc.table-name=" + ApprovalsOverHttpContractTests.TABLE,
				"idempotency.jdbc.initialize-schema=always", "idempotency.reconciler.interval=1h",
				"idempotency.approval.expire-after=1h" })
abstract class ApprovalsOverHttpContractTests {

	static final String TABLE = "tool_audit_approve_http";

	/** Payments that a person approves before they are made. */
	public static class Payments {

		final AtomicInteger made = new AtomicInteger();

		@IdempotentTool(name = "pay_invoice", reconcile = "find", requiresApproval = true)
		public String payInvoice(String invoice, int cents) {
			this.made.incrementAndGet();
			return "paid " + invoice;
		}

		/** How many payments were made. */
		public int made() {
			return this.made.get();
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	/** The decisions the application was told of. */
	public static class Decisions {

		final List<ApprovalDecidedEvent> published = new CopyOnWriteArrayList<>();

		@EventListener
		void decided(ApprovalDecidedEvent event) {
			this.published.add(event);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		DataSource dataSource(@Value("${test.database}") String database) {
			DataSource shared = TestDatabases.dataSource(TestDatabase.valueOf(database));
			LedgerSchema.drop(shared, TABLE);
			return new DelegatingDataSource(shared);
		}

		@Bean
		Payments payments() {
			return new Payments();
		}

		@Bean
		Decisions decisions() {
			return new Decisions();
		}

	}

	record Answer(int status, JsonNode body) {

		String refused() {
			return this.body.path("refused").asString();
		}

	}

	@LocalServerPort
	int port;

	@Autowired
	Payments payments;

	@Autowired
	Decisions decisions;

	@Autowired
	Approvals approvals;

	@Autowired
	JdbcLedger ledger;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	MeterRegistry meters;

	@Autowired
	ApplicationEventPublisher publisher;

	@Autowired
	IdempotencyMaintenance maintenance;

	final HttpClient http = HttpClient.newHttpClient();

	@BeforeEach
	void emptyTheLedger() {
		this.jdbc.update("DELETE FROM " + TABLE);
		this.decisions.published.clear();
	}

	Answer get(String path) throws Exception {
		return send(HttpRequest.newBuilder(uri("/actuator/idempotencyapprovals" + path)).GET());
	}

	Answer post(String key, Map<String, String> body) throws Exception {
		return send(HttpRequest.newBuilder(uri("/actuator/idempotencyapprovals/" + key))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(SettlementsOverHttpContractTests.JSON.writeValueAsString(body))));
	}

	Answer send(HttpRequest.Builder request) throws Exception {
		HttpResponse<String> response = this.http.send(request.timeout(Duration.ofSeconds(30)).build(),
				HttpResponse.BodyHandlers.ofString());
		String body = response.body();
		return new Answer(response.statusCode(),
				SettlementsOverHttpContractTests.JSON.readTree((body == null || body.isEmpty()) ? "{}" : body));
	}

	URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	/** A payment its run asked for: it waits for approval, and nothing was paid. */
	IdempotencyKey awaiting(String run, String invoice) {
		assertThatExceptionOfType(AwaitingApprovalException.class).isThrownBy(() -> pay(run, invoice));
		return new IdempotencyKey(this.jdbc.queryForObject(
				"SELECT idempotency_key FROM " + TABLE + " WHERE run_id = ?", String.class, run));
	}

	String pay(String run, String invoice) {
		return RunContext.supply(new Run(run, "clerk-" + run), () -> this.payments.payInvoice(invoice, 1250));
	}

	double counted(String name, String tag, String value) {
		return this.meters.get(name).tag(tag, value).functionCounter().count();
	}

	@Test
	void theCallsAwaitingApprovalAreListedAPageAtATimeWithWhatAPersonNeeds() throws Exception {
		IdempotencyKey first = awaiting("list-1", "INV-1");
		IdempotencyKey second = awaiting("list-2", "INV-2");
		IdempotencyKey third = awaiting("list-3", "INV-3");

		Answer page = get("?limit=2");
		assertThat(page.status()).isEqualTo(200);
		assertThat(page.body().path("calls")).extracting((call) -> call.path("key").asString())
			.containsExactly(first.value(), second.value());
		JsonNode call = page.body().path("calls").get(0);
		assertThat(call.path("tool").asString()).isEqualTo("pay_invoice");
		assertThat(call.path("runId").asString()).isEqualTo("list-1");
		assertThat(call.path("userId").asString()).isEqualTo("clerk-list-1");
		assertThat(call.path("status").asString()).isEqualTo("awaiting_approval");
		assertThat(call.path("arguments").path("invoice").asString()).isEqualTo("INV-1");
		assertThat(call.path("arguments").path("cents").asInt()).isEqualTo(1250);
		assertThat(call.path("reason").asString()).isNotBlank();
		assertThat(call.path("age").asString()).startsWith("PT");
		Answer next = get("?limit=2&after=" + page.body().path("nextAfter").asLong());
		assertThat(next.body().path("calls")).extracting((c) -> c.path("key").asString())
			.containsExactly(third.value());
		assertThat(next.body().path("nextAfter").isNull()).isTrue();
		assertThat(get("?tool=pay_invoice").body().path("calls")).hasSize(3);
		assertThat(get("?tool=open_ticket").body().path("calls")).isEmpty();
		assertThat(get("/" + first.value()).body().path("runId").asString()).isEqualTo("list-1");
		assertThat(this.payments.made()).isEqualTo(0);
	}

	@Test
	void anApprovedCallExecutesOnceWhenItsRunCallsAgainAndTheDecisionIsPublished() throws Exception {
		IdempotencyKey key = awaiting("approve-1", "INV-9");

		Answer approved = post(key.value(),
				Map.of("decision", "approve", "reason", "the invoice matches the order", "operator", "ops-anna"));

		assertThat(approved.status()).isEqualTo(200);
		assertThat(approved.body().path("status").asString()).isEqualTo("approved");
		assertThat(approved.body().path("decidedBy").asString()).isEqualTo("ops-anna");
		assertThat(approved.body().path("decisionReason").asString()).isEqualTo("the invoice matches the order");
		assertThat(this.decisions.published).singleElement().satisfies((event) -> {
			assertThat(event.approved()).isTrue();
			assertThat(event.runId()).isEqualTo("approve-1");
			assertThat(event.userId()).isEqualTo("clerk-approve-1");
			assertThat(event.key()).isEqualTo(key);
		});
		assertThat(pay("approve-1", "INV-9")).isEqualTo("paid INV-9");
		assertThat(pay("approve-1", "INV-9")).isEqualTo("paid INV-9");
		assertThat(this.payments.made()).isEqualTo(1);
		assertThat(get("").body().path("calls")).isEmpty();
	}

	@Test
	void aRejectedCallNeverExecutesAndItsRunIsToldWhy() throws Exception {
		IdempotencyKey key = awaiting("reject-1", "INV-7");

		Answer rejected = post(key.value(),
				Map.of("decision", "reject", "reason", "the supplier is not on the list", "operator", "ops-ben"));

		assertThat(rejected.status()).isEqualTo(200);
		assertThat(rejected.body().path("status").asString()).isEqualTo("rejected");
		assertThat(this.decisions.published).singleElement().satisfies((event) -> {
			assertThat(event.approved()).isFalse();
			assertThat(event.decision()).isEqualTo(LedgerStatus.REJECTED);
			assertThat(event.runId()).isEqualTo("reject-1");
			assertThat(event.userId()).isEqualTo("clerk-reject-1");
		});
		assertThatExceptionOfType(NotApprovedException.class).isThrownBy(() -> pay("reject-1", "INV-7"))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains("the supplier is not on the list"));
		assertThat(this.payments.made()).isEqualTo(0);
	}

	@Test
	void eachRefusalIsAnsweredWithItsStatusAndReasonAndWritesNothing() throws Exception {
		IdempotencyKey key = awaiting("refused-1", "INV-5");
		String unknown = "a".repeat(64);

		Answer notFound = post(unknown, Map.of("decision", "approve", "reason", "ok", "operator", "ops-anna"));
		assertThat(notFound.status()).isEqualTo(404);
		assertThat(notFound.refused()).isEqualTo("unknown_key");
		assertThat(get("/" + unknown).status()).isEqualTo(404);
		Answer noReason = post(key.value(), Map.of("decision", "approve", "operator", "ops-anna"));
		assertThat(noReason.status()).isEqualTo(400);
		assertThat(noReason.refused()).isEqualTo("missing_reason");
		Answer noOperator = post(key.value(), Map.of("decision", "approve", "reason", "ok"));
		assertThat(noOperator.status()).isEqualTo(400);
		assertThat(noOperator.refused()).isEqualTo("missing_reason");
		assertThat(noOperator.body().path("message").asString()).contains("'operator'");
		Answer badText = post(key.value(), Map.of("decision", "approve", "reason", "ok", "operator", "ops\u0007anna"));
		assertThat(badText.status()).isEqualTo(400);
		assertThat(badText.refused()).isEqualTo("invalid_request");
		Answer badDecision = post(key.value(), Map.of("decision", "maybe", "reason", "ok", "operator", "ops-anna"));
		assertThat(badDecision.status()).isEqualTo(400);
		assertThat(badDecision.refused()).isEqualTo("invalid_request");
		assertThat(post("not-a-key", Map.of("decision", "approve", "reason", "ok", "operator", "a")).status())
			.isEqualTo(400);
		assertThat(this.approvals.find(key).orElseThrow().isAwaiting()).isTrue();

		assertThat(post(key.value(), Map.of("decision", "reject", "reason", "no", "operator", "ops-anna")).status())
			.isEqualTo(200);
		Answer decided = post(key.value(), Map.of("decision", "approve", "reason", "yes", "operator", "ops-ben"));
		assertThat(decided.status()).isEqualTo(409);
		assertThat(decided.refused()).isEqualTo("already_decided");
		assertThat(decided.body().path("message").asString()).contains("ops-anna");

		// A call of a tool that needs no approval never waited for one.
		this.jdbc.update("UPDATE " + TABLE + " SET status = 'succeeded', approval_reason = NULL WHERE idempotency_key = ?",
				key.value());
		Answer neverAsked = post(key.value(), Map.of("decision", "approve", "reason", "yes", "operator", "ops-ben"));
		assertThat(neverAsked.status()).isEqualTo(409);
		assertThat(neverAsked.refused()).isEqualTo("not_awaiting_approval");
	}

	@Test
	void ofTwoDecisionsAtOnceOverHttpExactlyOneWins() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try {
			for (int round = 0; round < 10; round++) {
				IdempotencyKey key = awaiting("race-" + round, "INV-R" + round);
				CyclicBarrier start = new CyclicBarrier(4);
				List<Future<Answer>> answers = new ArrayList<>();
				for (int person = 0; person < 4; person++) {
					String decision = (person % 2 == 0) ? "approve" : "reject";
					String who = "ops-" + person;
					answers.add(threads.submit(() -> {
						start.await();
						return post(key.value(), Map.of("decision", decision, "reason", "decided", "operator", who));
					}));
				}
				List<Answer> done = new ArrayList<>();
				for (Future<Answer> answer : answers) {
					done.add(answer.get());
				}
				assertThat(done).filteredOn((answer) -> answer.status() == 200).hasSize(1);
				assertThat(done).filteredOn((answer) -> answer.status() == 409)
					.hasSize(3)
					.allSatisfy((answer) -> assertThat(answer.refused()).isEqualTo("already_decided"));
			}
			assertThat(this.decisions.published).hasSize(10);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void ofADecisionAndTheExpiryAtOnceExactlyOneWins() throws Exception {
		// Expires whatever waits: every call here is overdue.
		Approvals expiring = new Approvals(this.ledger.approvals(), Duration.ofMillis(1), this.publisher::publishEvent);
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			for (int round = 0; round < 10; round++) {
				IdempotencyKey key = awaiting("expiry-race-" + round, "INV-E" + round);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> this.approvals.find(key).orElseThrow().age().toMillis() > 2);
				CyclicBarrier start = new CyclicBarrier(2);
				Future<List<ApprovalRequest>> expired = threads.submit(() -> {
					start.await();
					return expiring.expireOverdue();
				});
				Future<Boolean> approved = threads.submit(() -> {
					start.await();
					try {
						this.approvals.approve(key, "ops-anna", "fine");
						return true;
					}
					catch (ApprovalRefusedException ex) {
						assertThat(ex.reason()).isEqualTo(ApprovalRefusedException.Reason.ALREADY_DECIDED);
						return false;
					}
				});
				boolean approvedWon = approved.get();
				boolean expiredWon = expired.get().stream().anyMatch((call) -> call.entry().key().equals(key));
				assertThat(approvedWon).as("round %d: exactly one wins", round).isNotEqualTo(expiredWon);
				LedgerStatus status = this.approvals.find(key).orElseThrow().entry().status();
				assertThat(status).isEqualTo(approvedWon ? LedgerStatus.APPROVED : LedgerStatus.EXPIRED);
			}
			assertThat(this.decisions.published).hasSize(10);
			assertThat(this.decisions.published).filteredOn((event) -> event.decision() == LedgerStatus.EXPIRED)
				.allSatisfy((event) -> assertThat(event.runId()).startsWith("expiry-race-"))
				.allSatisfy((event) -> assertThat(event.userId()).startsWith("clerk-expiry-race-"));
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void anExpiredCallIsRefusedToItsRunAndTheExpiryRunsOnTheReconcilersSchedule() throws Exception {
		IdempotencyKey key = awaiting("expired-1", "INV-X");
		Approvals expiring = new Approvals(this.ledger.approvals(), Duration.ofMillis(1), this.publisher::publishEvent);
		await().atMost(Duration.ofSeconds(10)).until(() -> !expiring.expireOverdue().isEmpty());

		assertThat(this.approvals.find(key).orElseThrow().entry().status()).isEqualTo(LedgerStatus.EXPIRED);
		assertThat(this.decisions.published).singleElement()
			.satisfies((event) -> assertThat(event.decision()).isEqualTo(LedgerStatus.EXPIRED));
		assertThatExceptionOfType(NotApprovedException.class).isThrownBy(() -> pay("expired-1", "INV-X"))
			.satisfies((ex) -> assertThat(ex.expired()).isTrue());
		assertThat(post(key.value(), Map.of("decision", "approve", "reason", "late", "operator", "ops-anna")).refused())
			.isEqualTo("already_decided");
		assertThat(this.maintenance.getScheduledTasks()).extracting((task) -> task.getTask().toString())
			.contains("idempotency approval expiry");
	}

	@Test
	void theMetersCountRequestsDecisionsAndRefusalsAndTheGaugeReadsTheWaiting() throws Exception {
		double requested = this.meters.get("idempotency.approvals.requested").functionCounter().count();
		double approved = counted("idempotency.approvals", "idempotency.decision", "approved");
		double rejected = counted("idempotency.approvals", "idempotency.decision", "rejected");
		double refused = counted("idempotency.approvals.refused", "idempotency.reason", "unknown_key");
		IdempotencyKey one = awaiting("meter-1", "INV-M1");
		IdempotencyKey two = awaiting("meter-2", "INV-M2");
		awaiting("meter-3", "INV-M3");

		assertThat(this.meters.get("idempotency.ledger.awaiting.approval").gauge().value()).isEqualTo(3.0);
		post(one.value(), Map.of("decision", "approve", "reason", "ok", "operator", "ops-anna"));
		post(two.value(), Map.of("decision", "reject", "reason", "no", "operator", "ops-anna"));
		post("b".repeat(64), Map.of("decision", "reject", "reason", "no", "operator", "ops-anna"));

		assertThat(this.meters.get("idempotency.approvals.requested").functionCounter().count() - requested)
			.isEqualTo(3.0);
		assertThat(counted("idempotency.approvals", "idempotency.decision", "approved") - approved).isEqualTo(1.0);
		assertThat(counted("idempotency.approvals", "idempotency.decision", "rejected") - rejected).isEqualTo(1.0);
		assertThat(counted("idempotency.approvals.refused", "idempotency.reason", "unknown_key") - refused)
			.isEqualTo(1.0);
		assertThat(this.meters.get("idempotency.approvals").tag("idempotency.decision", "expired").functionCounter())
			.isNotNull();
		assertThat(this.meters.get("idempotency.ledger.awaiting.approval").gauge().value()).isEqualTo(1.0);
	}

	@Test
	void aLedgerOfCallsAwaitingApprovalRejectedAndExpiredIsUp() throws Exception {
		for (int i = 0; i < 5; i++) {
			awaiting("health-" + i, "INV-H" + i);
		}
		IdempotencyKey rejected = awaiting("health-rejected", "INV-HR");
		this.approvals.reject(rejected, "ops-anna", "no");
		awaiting("health-expired", "INV-HE");
		Approvals expiring = new Approvals(this.ledger.approvals(), Duration.ofMillis(1), this.publisher::publishEvent);
		await().atMost(Duration.ofSeconds(10)).until(() -> !expiring.expireOverdue().isEmpty());

		Answer health = send(HttpRequest.newBuilder(uri("/actuator/health")).GET());
		assertThat(health.status()).isEqualTo(200);
		assertThat(health.body().path("status").asString()).isEqualTo("UP");
		assertThat(health.body().path("components").path("idempotency").path("status").asString()).isEqualTo("UP");
	}

}
