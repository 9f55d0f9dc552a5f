package io.idempotency.ledger;

import java.time.Duration;

import javax.sql.DataSource;

import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresqlLedgerTest extends LedgerContractTests {

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.POSTGRESQL);
	}

	@Test
	void theReconcilersQueryReadsOnlyThePartialIndexOfUnsettledRows() {
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, started_at,"
				+ " finished_at) SELECT md5(i::text) || md5(i::text), 'r', 't', '{}', CASE WHEN i % 2 = 0 THEN"
				+ " 'succeeded' ELSE 'failed' END, CURRENT_TIMESTAMP - INTERVAL '1 day', CURRENT_TIMESTAMP"
				+ " FROM generate_series(1, 200000) AS i");
		for (int i = 0; i < 3; i++) {
			this.ledger.claim(request("r1", "{\"n\":" + i + "}"));
		}
		this.jdbc.execute("ANALYZE " + TABLE);

		String plan = String.join("\n", this.jdbc.queryForList("EXPLAIN " + statements().findStale, String.class,
				Duration.ofMinutes(2).toNanos() / 1000, Duration.ofMinutes(2).toNanos() / 1000, 100));

		assertThat(plan).contains("Index Scan using " + TABLE + "_unsettled_ix").doesNotContain("Seq Scan");
	}

	private static LedgerStatements statements() {
		return new LedgerStatements(LedgerDialect.POSTGRESQL, TableName.of(TABLE));
	}

}
