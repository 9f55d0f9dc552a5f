package io.idempotency.sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import io.idempotency.sample.agent.Agent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo's checks can fail: with idempotency off, the duplicates it prevents are there. */
class IdempotencyOffTest extends SampleAppTest {

	@Autowired
	Demo demo;

	@Autowired
	Agent agent;

	@AfterEach
	void turnItBackOn() {
		this.agent.idempotencyOff(false);
	}

	@Test
	void thePagesSwitchLetsTheModelsTwinAndRepeatEachOpenATicket() {
		ByteArrayOutputStream narration = new ByteArrayOutputStream();
		this.demo.narrateTo(new PrintStream(narration, true, StandardCharsets.UTF_8));
		this.agent.idempotencyOff(true);

		assertThat(this.demo.twoTicketsInOneRun()).isFalse();
		assertThat(narration.toString(StandardCharsets.UTF_8)).contains("[FAILED] two tickets (4)");
	}

}
