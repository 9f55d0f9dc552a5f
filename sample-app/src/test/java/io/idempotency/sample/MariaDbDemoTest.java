package io.idempotency.sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole demo with {@code spring.datasource.url} pointing at MariaDB (a server named by
 * {@code IDEMPOTENCY_TEST_MARIADB_URL}, else an embedded one), in a database of its own.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MariaDbDemoTest {

	@DynamicPropertySource
	static void mariadb(DynamicPropertyRegistry properties) {
		properties.add("spring.datasource.url", () -> SampleDatabases
			.mariadb(((HikariDataSource) TestDatabases.dataSource(TestDatabase.MARIADB)).getJdbcUrl()));
	}

	@Autowired
	Demo demo;

	@Test
	void everyExpectationHolds() {
		ByteArrayOutputStream narration = new ByteArrayOutputStream();
		int failed = this.demo.play(new PrintStream(narration, true, StandardCharsets.UTF_8));
		assertThat(failed).as(narration.toString(StandardCharsets.UTF_8)).isZero();
	}

}
