package io.idempotency.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTest {

	@Autowired
	QuoteTools quoteTools;

	@Autowired
	TicketSystem tickets;

	@Test
	void theScriptedRunsActOncePerIntent(CapturedOutput output) {
		// Monday's retried quote is one quote; Monday's repeated ticket is one ticket; Tuesday's is another.
		assertThat(this.quoteTools.quotes()).hasSize(1);
		assertThat(this.tickets.tickets()).hasSize(2);
		// draft_quote returns a plain Quote: its replay reaches the model wrapped in a notice.
		assertThat(output).contains("\"replayed\":true,\"kind\":\"replayed\"")
			.contains("the model reads: {\"replayed\":true,\"kind\":\"replayed\",\"message\":")
			.contains("\"result\":{\"id\":1,")
			.contains("Already done earlier in this run")
			.contains("Ledger: 3 executions, 2 replays");
	}

}
