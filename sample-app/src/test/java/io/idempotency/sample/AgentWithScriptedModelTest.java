package io.idempotency.sample;

import java.util.List;
import java.util.UUID;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.sample.agent.Agent;
import io.idempotency.sample.agent.RunTranscript;
import io.idempotency.sample.external.TicketSystem;
import io.idempotency.test.ai.ScriptedChatModel;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static io.idempotency.test.LedgerAssertions.assertThatLedger;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's agent tested as a team tests its own: a model scripted call by call, and assertions on the
 * ledger, from {@code idempotency-test}. The model repeats {@code open_ticket} three times in one run: a twin
 * in the same turn, then the same ticket with its description rephrased. The ledger is the application's,
 * on its database: the sample's {@code draft_quote} is transactional, which the in-memory ledger refuses.
 */
class AgentWithScriptedModelTest extends SampleAppTest {

	private static final JsonMapper JSON = new JsonMapper();

	@TestConfiguration
	static class Model {

		@Bean
		ScriptedChatModel chatModel() {
			return new ScriptedChatModel();
		}

	}

	@Autowired
	Agent agent;

	@Autowired
	ScriptedChatModel model;

	@Autowired
	JdbcLedger ledger;

	@Autowired
	TicketSystem tickets;

	@Test
	void theModelsRepeatsOfOneTicketOpenOneTicketAndTheModelIsToldWhatWasNotApplied() {
		String account = "Acme " + UUID.randomUUID();
		String call = "{\"accountName\": \"" + account + "\", \"issue\": \"seal failure\", \"description\": \"The seal leaks.\"}";
		String rephrased = "{\"issue\": \"seal failure \", \"description\": \"Customer says the seal leaks\", \"accountName\": \""
				+ account + "\"}";
		this.model.callsTool("open_ticket", call, call).callsTool("open_ticket", rephrased).answers("One ticket opened.");

		RunTranscript run = this.agent.ask("Open a ticket for the seal failure at " + account);

		assertThat(run.getAnswer()).isEqualTo("One ticket opened.");
		assertThat(this.tickets.tickets()).filteredOn((ticket) -> ticket.accountName().equals(account)).hasSize(1);
		// One call of open_ticket in the run (the table holds the other tests' runs too).
		assertThatLedger(this.ledger).call("open_ticket", run.getRunId())
			.succeeded()
			.wasReplayed(2)
			.wasMadeBy(Agent.USER)
			.hasArguments(call);
		List<JsonNode> read = this.model.toolResponsesRead()
			.stream()
			.map((response) -> JSON.readTree(response.responseData()))
			.toList();
		assertThat(read).hasSize(3);
		assertThat(read.get(0).path("accountName").asString()).as("the ticket itself, for a plain result type")
			.isEqualTo(account);
		assertThat(read.subList(1, 3)).extracting((answer) -> answer.path("kind").asString())
			.containsExactly("replayed", "replayed_different_details");
		this.model.assertScriptUsed();
	}

}
