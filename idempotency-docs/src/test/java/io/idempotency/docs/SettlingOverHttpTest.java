package io.idempotency.docs;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import javax.sql.DataSource;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * docs/operating.md's Spring Security configuration of the calls over HTTP, run as the guide gives it: the
 * operators settle, the operations team reads, health is open, and nobody else gets in.
 */
@SpringBootTest(classes = SettlingOverHttpTest.Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "spring.main.banner-mode=off", "management.endpoints.web.exposure.include=health,idempotencycalls",
                "management.endpoint.idempotencycalls.access=unrestricted",
                "idempotency.jdbc.table-name=settling_over_http_audit", "idempotency.jdbc.initialize-schema=always",
                "idempotency.reconciler.stale-after=1ms", "idempotency.reconciler.max-attempts=1",
                "idempotency.reconciler.interval=1h" })
class SettlingOverHttpTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(SettlingOverHttp.class)
    static class Application {

        @Bean
        DataSource dataSource() {
            // The test run's shared pool: the context must not close it.
            return new DelegatingDataSource(TestDatabases.dataSource(TestDatabase.H2));
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("anna").password("{noop}anna-secret").roles("OPS", "IDEMPOTENCY_OPERATOR").build(),
                    User.withUsername("victor").password("{noop}victor-secret").roles("OPS").build(),
                    User.withUsername("sales").password("{noop}sales-secret").roles("SALES").build());
        }

        @Bean
        Refunds refunds() {
            return new Refunds();
        }
    }

    /** A tool whose call times out after it may have taken effect, and whose reconcile method cannot tell. */
    static class Refunds {

        @IdempotentTool(name = "book_refund", reconcile = "find")
        public String bookRefund(String account, int cents) {
            throw new UncheckedIOException(new SocketTimeoutException("the bank did not answer"));
        }

        Reconciliation<String> find(IdempotencyKey key) {
            throw new IllegalStateException("the bank's statements cannot be read");
        }
    }

    @LocalServerPort int port;
    @Autowired Refunds refunds;
    @Autowired Reconciler reconciler;
    @Autowired Settlements settlements;

    @Test
    void operatorsSettleTheOperationsTeamReadsHealthIsOpenAndNobodyElseGetsIn() throws Exception {
        IdempotencyKey key = awaitingHuman("settling-over-http");
        String call = "/actuator/idempotencycalls/" + key.value();
        String settle = "{\"settle\": \"failed\", \"reason\": \"The bank booked no refund.\"}";

        assertThat(send("GET", "/actuator/health", null, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/actuator/idempotencycalls", null, null).statusCode()).isEqualTo(401);
        assertThat(send("GET", "/actuator/idempotencycalls", "sales", null).statusCode()).isEqualTo(403);
        assertThat(send("GET", "/actuator/idempotencycalls", "victor", null).body()).contains(key.value());
        assertThat(send("GET", call, "victor", null).statusCode()).isEqualTo(200);
        assertThat(send("POST", call, "victor", settle).statusCode()).isEqualTo(403);
        assertThat(send("POST", call, null, settle).statusCode()).isEqualTo(401);
        assertThat(this.settlements.find(key).orElseThrow().entry().isUnsettled()).isTrue();

        HttpResponse<String> settled = send("POST", call, "anna", settle);

        assertThat(settled.statusCode()).isEqualTo(200);
        assertThat(settled.body()).contains("\"settledBy\":\"anna\"");
        assertThat(this.settlements.find(key).orElseThrow().entry().status()).isEqualTo(LedgerStatus.FAILED);
    }

    private IdempotencyKey awaitingHuman(String run) {
        assertThatExceptionOfType(UncheckedIOException.class)
            .isThrownBy(() -> RunContext.supply(new Run(run, "rep-1"), () -> this.refunds.bookRefund("Acme", 10)));
        return await().atMost(Duration.ofSeconds(30)).until(() -> {
            this.reconciler.reconcile();
            return this.settlements.awaitingHuman(CallFilter.all())
                .calls()
                .stream()
                .map((waiting) -> waiting.entry())
                .filter((entry) -> entry.runId().equals(run))
                .map((entry) -> entry.key())
                .findFirst()
                .orElse(null);
        }, (found) -> found != null);
    }

    private HttpResponse<String> send(String method, String path, String user, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
            .timeout(Duration.ofSeconds(30))
            .method(method, (json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        if (user != null) {
            request.header("Authorization", "Basic "
                    + Base64.getEncoder().encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8)));
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

}
