package io.idempotency.sample;

import java.nio.file.Path;
import java.util.UUID;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample application as a person runs it, on its embedded PostgreSQL, fresh for the test run; or, where
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL} names a server (as CI does), on that server, in a schema of its own. Its tests share one
 * running application.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class SampleAppTest {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry properties) {
		String server = System.getenv("IDEMPOTENCY_TEST_POSTGRES_URL");
		if (server != null && !server.isBlank()) {
			properties.add("spring.datasource.url", () -> SampleDatabases.postgresql(server));
		}
		else {
			Path dataDir = Path.of("target", "sample-data", UUID.randomUUID().toString());
			properties.add("sample.data-dir", dataDir::toString);
		}
	}

}
