package io.idempotency.sample;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTest {

	@Test
	void theScriptedRunTellsTheRetryFromTheNewRequest(CapturedOutput output) {
		assertThat(output).contains("monday-run draft_quote {\"quantity\":200.0,\"sku\":\" SKU-4411\"}")
			.contains("the same intent as the call before: one effect")
			.contains("tuesday-run draft_quote")
			.contains("a new intent: a second effect");
	}

}
