package io.idempotency.ledger;

import java.time.Duration;
import java.util.Map;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbLedgerTest extends LedgerContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	@Test
	void theReconcilersQueryReadsARangeOfTheStatusIndex() {
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, started_at,"
				+ " finished_at) SELECT CONCAT(MD5(seq), MD5(seq)), 'r', 't', '{}', IF(seq % 2 = 0, 'succeeded',"
				+ " 'failed'), UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) FROM seq_1_to_100000");
		for (int i = 0; i < 3; i++) {
			this.ledger.claim(request("r1", "{\"n\":" + i + "}"));
		}
		this.jdbc.execute("ANALYZE TABLE " + TABLE);

		Map<String, Object> plan = this.jdbc.queryForMap("EXPLAIN " + statements().findStale,
				Duration.ofMinutes(2).toNanos() / 1000, Duration.ofMinutes(2).toNanos() / 1000, 100);

		assertThat(plan.get("key")).isEqualTo(TABLE + "_status_started_ix");
		assertThat(Long.parseLong(String.valueOf(plan.get("rows")))).isLessThan(100);
	}

	/**
	 * MariaDB reads the two unsettled statuses as two ranges of the (status, started_at) index and sorts
	 * them by started_at, locking every candidate before the limit applies: a concurrent fetcher may get
	 * fewer rows (never the same ones), as on H2.
	 */
	@Override
	boolean skipLockedFillsTheLimit() {
		return false;
	}

	private static LedgerStatements statements() {
		return new LedgerStatements(LedgerDialect.MYSQL, TableName.of(TABLE));
	}

}
