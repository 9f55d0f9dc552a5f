package io.idempotency.docs.quickstart;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;

import io.idempotency.Answer;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.willAnswer;
import static org.mockito.BDDMockito.willThrow;

/**
 * docs/operating.md's settlements in the quick start's application, with its Spring Security configuration
 * ({@link ActuatorSecurityConfiguration}) as the guide gives it: the operator settles a call of {@code open_ticket} over
 * HTTP with the body the guide shows, the operations team reads, health is open, and nobody else gets in;
 * and {@link SettlingByHand}'s settlement in Java binds to the tool's result type. A repeat of each call then
 * replays the settled ticket.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "idempotency.reconciler.stale-after=1ms", "idempotency.reconciler.max-attempts=1",
                "idempotency.reconciler.interval=1h" })
@Import(DatabaseAndModel.class)
class SettlingOverHttpTest {

    @LocalServerPort int port;
    @Autowired TicketTools tools;
    @Autowired Reconciler reconciler;
    @Autowired Settlements settlements;
    @MockitoSpyBean HelpDesk helpDesk;

    /** The help desk opens each ticket but its answer times out, and it is down when asked about it later. */
    @BeforeEach
    void helpDeskTimesOutAndGoesDown() {
        willAnswer((call) -> {
            call.callRealMethod();
            throw new UncheckedIOException(new SocketTimeoutException("Read timed out"));
        }).given(this.helpDesk).create(any(), any(), any());
        willThrow(new IllegalStateException("the help desk is down")).given(this.helpDesk).findByReference(any());
    }

    @Test
    void operatorsSettleTheOperationsTeamReadsHealthIsOpenAndNobodyElseGetsIn() throws Exception {
        Run run = new Run("run-" + UUID.randomUUID(), "rep-1");
        IdempotencyKey key = awaitingHuman(run);
        String call = "/actuator/idempotencycalls/" + key.value();
        // The body of operating.md's curl: the ticket as the help desk shows it, as JSON text.
        String settle = """
                {"settle":"succeeded","result":"{\\"id\\":\\"T-1042\\",\\"accountName\\":\\"Acme\\",\\"issue\\":\\"pump noise\\",\\"reference\\":\\"atlas-3f2a9c1e7b5d4a60\\"}","reason":"ticket T-1042 is in the help desk"}""";

        assertThat(send("GET", "/actuator/health", null, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/actuator/idempotencycalls", null, null).statusCode()).isEqualTo(401);
        assertThat(send("GET", "/actuator/idempotencycalls", "victor", null).body()).contains(key.value());
        assertThat(send("GET", call, "victor", null).statusCode()).isEqualTo(200);
        assertThat(send("POST", call, "victor", settle).statusCode()).isEqualTo(403);
        assertThat(send("POST", call, null, settle).statusCode()).isEqualTo(401);
        assertThat(this.settlements.find(key).orElseThrow().entry().isUnsettled()).isTrue();

        HttpResponse<String> settled = send("POST", call, "anna", settle);

        assertThat(settled.statusCode()).as(settled.body()).isEqualTo(200);
        assertThat(settled.body()).contains("\"settledBy\":\"anna\"");
        assertThat(this.settlements.find(key).orElseThrow().entry().status()).isEqualTo(LedgerStatus.SUCCEEDED);
        assertRepeatReplays(run, new Ticket("T-1042", "Acme", "pump noise", "atlas-3f2a9c1e7b5d4a60"));
    }

    @Test
    void theSettlementInJavaBindsToTheToolsTicket() throws Exception {
        Run run = new Run("run-" + UUID.randomUUID(), "rep-1");
        IdempotencyKey key = awaitingHuman(run);

        new SettlingByHand().settleSucceeded(this.settlements, key.value());

        assertRepeatReplays(run, new Ticket("T-1042", "Acme", "pump noise", "atlas-3f2a9c1e7b5d4a60"));
    }

    private void assertRepeatReplays(Run run, Ticket settled) throws Exception {
        ToolResult<Ticket> repeat = RunContext.call(run,
                () -> this.tools.openTicket("Acme", "pump noise", new ToolContext(Map.of())));
        assertThat(repeat.kind()).isEqualTo(Answer.REPLAYED);
        assertThat(repeat.data()).isEqualTo(settled);
    }

    /** A call of open_ticket in the run whose outcome is unknown, handed to a human by the reconciler. */
    private IdempotencyKey awaitingHuman(Run run) {
        assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> RunContext.run(run,
                () -> this.tools.openTicket("Acme", "pump noise", new ToolContext(Map.of()))));
        return await().atMost(Duration.ofSeconds(30)).until(() -> {
            this.reconciler.reconcile();
            return this.settlements.awaitingHuman(CallFilter.all())
                .calls()
                .stream()
                .map((waiting) -> waiting.entry())
                .filter((entry) -> entry.runId().equals(run.runId()))
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
