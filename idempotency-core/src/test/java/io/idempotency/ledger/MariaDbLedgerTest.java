package io.idempotency.ledger;

import java.time.Duration;
import java.util.Map;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbLedgerTest extends LedgerContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Test
	void theReconcilersQueryReadsOneRangeOfTheIndexOfUnsettledRows() {
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, started_at,"
				+ " finished_at) SELECT CONCAT(MD5(seq), MD5(seq)), 'r', 't', '{}', IF(seq % 2 = 0, 'succeeded',"
				+ " 'failed'), UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) FROM seq_1_to_100000");
		for (int i = 0; i < 3; i++) {
			this.ledger.claim(request("r1", "{\"n\":" + i + "}"));
		}
		this.jdbc.execute("ANALYZE TABLE " + TABLE);

		Map<String, Object> plan = this.jdbc.queryForMap("EXPLAIN " + statements().findStale,
				Duration.ofMinutes(2).toNanos() / 1000, Duration.ofMinutes(2).toNanos() / 1000, 100);

		assertThat(plan.get("key")).isEqualTo(TABLE + "_unsettled_ix");
		assertThat(Long.parseLong(String.valueOf(plan.get("rows")))).isLessThan(100);
	}

	@Test
	void anOutcomeIsWrittenThroughTheUniqueKey() {
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, started_at,"
				+ " finished_at) SELECT CONCAT(MD5(seq), MD5(seq)), 'r', 't', '{}', IF(seq % 2 = 0, 'succeeded',"
				+ " 'failed'), UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) FROM seq_1_to_20000");
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		this.jdbc.execute("ANALYZE TABLE " + TABLE);

		Map<String, Object> plan = this.jdbc.queryForMap("EXPLAIN " + statements().recordOutcome, "succeeded", "{}",
				null, request.key().value());

		assertThat(plan.get("key")).isEqualTo(TABLE + "_key_uk");
		assertThat(String.valueOf(plan.get("rows"))).isEqualTo("1");
	}

	@Test
	void aLostClaimIsNoServerErrorSoTheDriverLogsNothingPerReplay() {
		Logger driver = (Logger) LoggerFactory.getLogger("org.mariadb.jdbc");
		Level level = driver.getLevel();
		ListAppender<ILoggingEvent> logged = new ListAppender<>();
		logged.start();
		driver.addAppender(logged);
		driver.setLevel(Level.WARN);
		try {
			ClaimRequest request = request("r1", ARGUMENTS);
			this.ledger.claim(request);
			this.ledger.recordSucceeded(request.key(), "{}");
			for (int i = 0; i < 3; i++) {
				assertThat(this.ledger.claim(request)).isInstanceOf(Claim.Replay.class);
			}
		}
		finally {
			driver.detachAppender(logged);
			driver.setLevel(level);
		}

		assertThat(logged.list).extracting(ILoggingEvent::getFormattedMessage).isEmpty();
	}

	private static LedgerStatements statements() {
		return new LedgerStatements(LedgerDialect.MYSQL, TableName.of(TABLE));
	}

}
