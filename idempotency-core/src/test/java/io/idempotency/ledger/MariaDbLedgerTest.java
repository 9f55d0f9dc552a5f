package io.idempotency.ledger;

import java.sql.Connection;
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

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

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
	void theWritesOfAClaimedRowReadItThroughThePrimaryKey() {
		// Settled rows, and one in 25 unsettled, as a burst of timeouts among ordinary calls leaves them.
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, started_at,"
				+ " finished_at) SELECT CONCAT(MD5(seq), MD5(seq)), 'r', 't', '{}', IF(seq % 25 = 0, 'attempting',"
				+ " 'succeeded'), UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) FROM seq_1_to_20000");
		ClaimRequest request = request("r1", ARGUMENTS);
		this.ledger.claim(request);
		long id = this.ledger.find(request.key()).orElseThrow().id();
		this.jdbc.execute("ANALYZE TABLE " + TABLE);
		LedgerStatements sql = statements();

		assertThat(plan(sql.recordOutcome, "succeeded", "{}", null, id)).isEqualTo("PRIMARY");
		assertThat(plan(sql.overturnFailure, "{}", null, id)).isEqualTo("PRIMARY");
		assertThat(plan(sql.heartbeat(1), id)).isEqualTo("PRIMARY");
		assertThat(plan(sql.resolve, "failed", null, "no effect", id, "owner")).isEqualTo("PRIMARY");
		assertThat(plan(sql.postpone, 1_000_000, id, "owner")).isEqualTo("PRIMARY");
	}

	/** The index a statement reads, where it reads one row. */
	private String plan(String statement, Object... parameters) {
		Map<String, Object> plan = this.jdbc.queryForMap("EXPLAIN " + statement, parameters);
		assertThat(String.valueOf(plan.get("rows"))).as("%s", plan).isEqualTo("1");
		return String.valueOf(plan.get("key"));
	}

	@Test
	void theClaimLearnsItsRowsIdFromTheInsertsOwnAnswer() throws Exception {
		try (Connection connection = this.dataSource.getConnection()) {
			SingleConnectionDataSource one = new SingleConnectionDataSource(connection, true);
			JdbcLedger onOneConnection = new JdbcLedger(one, TABLE, Redaction.defaults());
			JdbcTemplate session = new JdbcTemplate(one);
			ClaimRequest request = request("r1", ARGUMENTS);
			long before = questions(session);

			Claim.Won won = won(onOneConnection.claim(request));
			long statements = questions(session) - before - 1;
			assertThat(onOneConnection.recordSucceeded(won, "1")).as("written by the id it learned").isTrue();

			assertThat(statements).as("statements the server ran for the claim").isEqualTo(1);
		}
	}

	/** The statements this session sent the server, this one included. */
	private static long questions(JdbcTemplate session) {
		return session.queryForObject("SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS"
				+ " WHERE VARIABLE_NAME = 'QUESTIONS'", Long.class);
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
			Claim.Won won = won(this.ledger.claim(request));
			this.ledger.recordSucceeded(won, "{}");
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
