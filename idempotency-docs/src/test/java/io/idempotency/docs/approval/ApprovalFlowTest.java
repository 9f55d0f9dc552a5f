package io.idempotency.docs.approval;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.reconcile.Approvals;
import io.idempotency.run.Run;
import io.idempotency.test.ai.ScriptedChatModel;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The approval page run as an application runs it: Spring Boot, the starter, Spring AI's tool loop with the
 * page's tool, assistant and listener exactly as docs/approvals.md shows them, the ledger on PostgreSQL and a
 * scripted model. A large quote waits for a person; once approved, the listener resumes its run and the quote
 * is sent once; once rejected, never.
 */
@SpringBootTest(classes = QuoteApprovalApplication.class)
@Import(ApprovalFlowTest.DatabaseAndModel.class)
class ApprovalFlowTest {

    private static final JsonMapper JSON = new JsonMapper();

    @TestConfiguration(proxyBeanMethods = false)
    static class DatabaseAndModel {

        @Bean
        DataSource dataSource() {
            return new DelegatingDataSource(TestDatabases.dataSource(TestDatabase.POSTGRESQL));
        }

        @Bean
        ScriptedChatModel chatModel() {
            return new ScriptedChatModel();
        }

    }

    @Autowired ScriptedChatModel model;
    @Autowired QuoteAssistant assistant;
    @Autowired QuoteDesk quotes;
    @Autowired ResumeDecidedRuns resumed;
    @Autowired Approvals approvals;

    /** A customer of each test's own: the desk and the ledger keep the other tests' quotes. */
    String customer = "Henderson " + UUID.randomUUID();

    @BeforeEach
    void forgetTheScript() {
        this.model.reset();
    }

    private String quote(int quantity) {
        return "{\"customer\": \"" + this.customer + "\", \"quantity\": " + quantity + "}";
    }

    private ApprovalRequest awaiting(Run run) {
        List<ApprovalRequest> calls = this.approvals.awaiting("send_quote", 0, 100)
            .stream()
            .filter((call) -> call.entry().runId().equals(run.runId()))
            .toList();
        assertThat(calls).hasSize(1);
        return calls.get(0);
    }

    @Test
    void aSmallQuoteIsSentAtOnce() {
        this.model.callsTool("send_quote", quote(200)).answers("Sent.");

        this.assistant.ask(new Run("run-" + UUID.randomUUID(), "rep-7"), "Quote 200 units to " + this.customer);

        assertThat(this.quotes.sentTo(this.customer)).hasSize(1);
        assertThat(read(0).get("quantity").asInt()).as("the quote, as the model reads it").isEqualTo(200);
    }

    @Test
    void aLargeQuoteWaitsAndIsSentOnceWhenApprovedAndTheRunResumed() {
        Run run = new Run("run-" + UUID.randomUUID(), "rep-7");
        this.model.callsTool("send_quote", quote(5000), quote(5000)).answers("The quote awaits a person's approval.")
            .callsTool("send_quote", quote(5000)).answers("The quote was sent.");

        String first = this.assistant.ask(run, "Quote 5000 units to " + this.customer);

        assertThat(first).isEqualTo("The quote awaits a person's approval.");
        assertThat(this.quotes.sentTo(this.customer)).isEmpty();
        JsonNode told = read(0);
        assertThat(told.get("kind").asString()).isEqualTo("awaiting_approval");
        assertThat(told.get("message").asString()).contains("a person must approve this action")
            .contains("a quote over 1,000 units: 5000");
        assertThat(kindRead(1)).as("the model's repeat").isEqualTo("awaiting_approval");
        ApprovalRequest call = awaiting(run);
        assertThat(call.reason()).isEqualTo("a quote over 1,000 units: 5000");
        assertThat(call.entry().userId()).isEqualTo("rep-7");

        this.approvals.approve(call.entry().key(), "anna", "the customer confirmed the volume");

        await().atMost(Duration.ofSeconds(30)).until(() -> this.resumed.replies().contains("The quote was sent."));
        assertThat(this.quotes.sentTo(this.customer)).hasSize(1);
        assertThat(read(2).get("quantity").asInt()).as("the quote sent, as the resumed run reads it").isEqualTo(5000);
    }

    @Test
    void aRejectedQuoteIsNeverSentAndTheResumedRunIsToldWhy() {
        Run run = new Run("run-" + UUID.randomUUID(), "rep-7");
        this.model.callsTool("send_quote", quote(7000)).answers("The quote awaits a person's approval.")
            .callsTool("send_quote", quote(7000)).answers("The quote was not approved.");
        this.assistant.ask(run, "Quote 7000 units to " + this.customer);

        this.approvals.reject(awaiting(run).entry().key(), "anna", "the customer's credit is on hold");

        await().atMost(Duration.ofSeconds(30)).until(() -> this.resumed.replies().contains("The quote was not approved."));
        assertThat(this.quotes.sentTo(this.customer)).isEmpty();
        JsonNode refused = read(1);
        assertThat(refused.get("kind").asString()).isEqualTo("refused_not_approved");
        assertThat(refused.get("message").asString()).contains("the customer's credit is on hold");
    }

    private String kindRead(int index) {
        return read(index).get("kind").asString();
    }

    private JsonNode read(int index) {
        String response = this.model.toolResponsesRead().get(index).responseData();
        JsonNode text = JSON.readTree(response);
        return text.isString() ? JSON.readTree(text.asString()) : text;
    }

}
