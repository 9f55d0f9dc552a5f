package io.idempotency.autoconfigure.observability;

import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.Refunds;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The settlements endpoint of an application that exposes it and allows nothing more: read-only by default, its
 * calls are listed, never settled.
 */
@SpringBootTest(classes = SettlementsOverHttpContractTests.Application.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "test.database=H2", "spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
				"management.endpoints.web.exposure.include=idempotencycalls",
				"idempotency.jdbc.table-name=" + SettlementsOverHttpContractTests.TABLE,
				"idempotency.jdbc.initialize-schema=always", "idempotency.reconciler.max-attempts=1",
				"idempotency.reconciler.stale-after=1ms", "idempotency.reconciler.initial-backoff=1ms",
				"idempotency.reconciler.interval=1h" })
class SettlementsOverHttpReadOnlyTest {

	@LocalServerPort
	int port;

	@Autowired
	Refunds refunds;

	@Autowired
	JdbcLedger ledger;

	@Autowired
	Reconciler reconciler;

	@Autowired
	Settlements settlements;

	@Autowired
	JdbcTemplate jdbc;

	int send(String method, String path, String body) throws Exception {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/idempotencycalls" + path))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.method(method, (body != null) ? HttpRequest.BodyPublishers.ofString(body)
					: HttpRequest.BodyPublishers.noBody())
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
	}

	@Test
	void theCallsAreListedButASettlementIsNotMappedAndWritesNothing() throws Exception {
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(
				() -> RunContext.supply(new Run("read-only", "rep-1"), () -> this.refunds.bookRefund("Acme", 10)));
		IdempotencyKey key = new IdempotencyKey(this.jdbc.queryForObject("SELECT idempotency_key FROM "
				+ SettlementsOverHttpContractTests.TABLE + " WHERE run_id = ?", String.class, "read-only"));
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			this.reconciler.reconcile();
			return !this.settlements.awaitingHuman(CallFilter.all()).calls().isEmpty();
		});
		LedgerEntry before = this.ledger.find(key).orElseThrow();

		assertThat(send("GET", "", null)).isEqualTo(200);
		assertThat(send("GET", "/" + key.value(), null)).isEqualTo(200);
		int settle = send("POST", "/" + key.value(), SettlementsOverHttpContractTests.JSON.writeValueAsString(
				Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna")));

		assertThat(settle).isEqualTo(405);
		assertThat(this.ledger.find(key).orElseThrow()).isEqualTo(before);
	}

}
