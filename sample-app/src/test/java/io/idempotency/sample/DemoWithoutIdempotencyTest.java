package io.idempotency.sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** With {@code --idempotency.enabled=false} the demo fails: its expectations are the library's doing. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "idempotency.enabled=false")
class DemoWithoutIdempotencyTest extends SampleAppTest {

	@Autowired
	Demo demo;

	@Test
	void theDemoReportsTheDuplicatesAndFails() {
		ByteArrayOutputStream narration = new ByteArrayOutputStream();
		int failed = this.demo.play(new PrintStream(narration, true, StandardCharsets.UTF_8));

		String transcript = narration.toString(StandardCharsets.UTF_8);
		assertThat(failed).as(transcript).isGreaterThan(0);
		assertThat(transcript).contains("[FAILED] one ticket for the two requests (6)")
			.contains("[FAILED] one ticket for the two calls (2)")
			.contains(failed + " expectation(s) failed.");
	}

}
