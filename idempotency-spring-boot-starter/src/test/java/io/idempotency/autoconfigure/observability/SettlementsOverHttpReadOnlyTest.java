package io.idempotency.autoconfigure.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.Refunds;
import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.RefundsAwaitingHuman;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

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
		IdempotencyKey key = new RefundsAwaitingHuman(this.refunds, this.jdbc, this.reconciler, this.settlements,
				SettlementsOverHttpContractTests.TABLE)
			.book("read-only", "Acme", 10);
		LedgerEntry before = this.ledger.find(key).orElseThrow();

		assertThat(send("GET", "", null)).isEqualTo(200);
		assertThat(send("GET", "/" + key.value(), null)).isEqualTo(200);
		int settle = send("POST", "/" + key.value(), SettlementsOverHttpContractTests.JSON.writeValueAsString(
				Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna")));

		assertThat(settle).isEqualTo(405);
		assertThat(this.ledger.find(key).orElseThrow()).isEqualTo(before);
	}

}
