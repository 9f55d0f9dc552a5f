package io.idempotency.autoconfigure.observability;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.Refunds;
import io.idempotency.autoconfigure.observability.SettlementsOverHttpContractTests.RefundsAwaitingHuman;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Who may settle over HTTP, in real web applications with Actuator: only the endpoint's own setting,
 * {@code management.endpoint.idempotencycalls.access=unrestricted}, maps the settlement. Boot's application-wide
 * settings, which make every endpoint unrestricted ({@code management.endpoints.access.default}, the older
 * {@code management.endpoints.enabled-by-default}), and the older {@code management.endpoint.idempotencycalls.enabled},
 * which Boot reads as unrestricted too, leave it read-only: its calls are listed, a settlement is answered 405
 * and writes nothing.
 */
class SettlementsOverHttpAccessTest {

	static final String EXPOSED = "management.endpoints.web.exposure.include=idempotencycalls";

	static final String EVERY_ENDPOINT_EXPOSED = "management.endpoints.web.exposure.include=*";

	static final String OWN_ACCESS = "management.endpoint.idempotencycalls.access=";

	static Stream<Arguments> readOnly() {
		return Stream.of(arguments("exposed, and nothing more", List.of(EXPOSED)),
				arguments("every endpoint unrestricted by default",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoints.access.default=unrestricted")),
				arguments("every endpoint enabled by default, the older setting",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoints.enabled-by-default=true")),
				arguments("the endpoint enabled, the older setting",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoint.idempotencycalls.enabled=true")),
				arguments("every endpoint unrestricted and the endpoint enabled",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoints.access.default=unrestricted",
								"management.endpoint.idempotencycalls.enabled=true")),
				arguments("every endpoint and the endpoint enabled, the older settings",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoints.enabled-by-default=true",
								"management.endpoint.idempotencycalls.enabled=true")),
				arguments("its own access read-only, every endpoint's unrestricted",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoints.access.default=unrestricted",
								OWN_ACCESS + "read-only")),
				arguments("its own access unrestricted, but Boot's maximum read-only",
						List.of(EXPOSED, OWN_ACCESS + "unrestricted", "management.endpoints.access.max-permitted=read-only")));
	}

	static Stream<Arguments> unrestricted() {
		return Stream.of(arguments("its own access unrestricted", List.of(EXPOSED, OWN_ACCESS + "unrestricted")),
				arguments("its own access unrestricted, every endpoint's read-only",
						List.of(EVERY_ENDPOINT_EXPOSED, "management.endpoints.access.default=read-only",
								OWN_ACCESS + "UNRESTRICTED")));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("readOnly")
	void theCallsAreListedButASettlementIsNotMappedAndWritesNothing(String configuration, List<String> settings)
			throws Exception {
		try (ConfigurableApplicationContext application = start(settings)) {
			IdempotencyKey key = awaitingHuman(application, "read-only");
			JdbcLedger ledger = application.getBean(JdbcLedger.class);
			LedgerEntry before = ledger.find(key).orElseThrow();

			assertThat(send(application, "GET", "", null)).isEqualTo(200);
			assertThat(send(application, "GET", "/" + key.value(), null)).isEqualTo(200);
			assertThat(send(application, "POST", "/" + key.value(),
					Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna")))
				.isEqualTo(405);
			// As a discoverer that applies no operation filter (Cloud Foundry's) invokes it: refused by the
			// endpoint itself.
			assertThat(application.getBean(IdempotencyCallsEndpoint.class)
				.settle(key.value(), "failed", null, "no refund", "ops-anna", SecurityContext.NONE)
				.getStatus()).isEqualTo(405);

			assertThat(ledger.find(key).orElseThrow()).isEqualTo(before);
		}
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("unrestricted")
	void theEndpointsOwnAccessSettingOpensSettlement(String configuration, List<String> settings) throws Exception {
		try (ConfigurableApplicationContext application = start(settings)) {
			IdempotencyKey key = awaitingHuman(application, "unrestricted");

			assertThat(send(application, "POST", "/" + key.value(),
					Map.of("settle", "failed", "reason", "no refund", "operator", "ops-anna")))
				.isEqualTo(200);

			assertThat(application.getBean(JdbcLedger.class).find(key).orElseThrow().status())
				.isEqualTo(LedgerStatus.FAILED);
		}
	}

	static ConfigurableApplicationContext start(List<String> settings) {
		List<String> properties = new ArrayList<>(List.of("test.database=H2", "server.port=0",
				"spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
				"idempotency.jdbc.table-name=" + SettlementsOverHttpContractTests.TABLE,
				"idempotency.jdbc.initialize-schema=always", "idempotency.reconciler.max-attempts=1",
				"idempotency.reconciler.stale-after=1ms", "idempotency.reconciler.initial-backoff=1ms",
				"idempotency.reconciler.interval=1h"));
		properties.addAll(settings);
		return new SpringApplicationBuilder(SettlementsOverHttpContractTests.Application.class)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	static IdempotencyKey awaitingHuman(ConfigurableApplicationContext application, String run) {
		return new RefundsAwaitingHuman(application.getBean(Refunds.class), application.getBean(JdbcTemplate.class),
				application.getBean(Reconciler.class), application.getBean(Settlements.class),
				SettlementsOverHttpContractTests.TABLE)
			.book(run, "Acme", 10);
	}

	static int send(ConfigurableApplicationContext application, String method, String path, Map<String, String> body)
			throws Exception {
		String port = application.getEnvironment().getRequiredProperty("local.server.port");
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/idempotencycalls" + path))
			.timeout(Duration.ofSeconds(30))
			.header("Content-Type", "application/json")
			.method(method, (body != null)
					? HttpRequest.BodyPublishers.ofString(SettlementsOverHttpContractTests.JSON.writeValueAsString(body))
					: HttpRequest.BodyPublishers.noBody())
			.build();
		return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
	}

}
