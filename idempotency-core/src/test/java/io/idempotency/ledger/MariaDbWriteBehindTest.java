package io.idempotency.ledger;

import java.sql.Statement;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MariaDbWriteBehindTest extends WriteBehindContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.MARIADB);
	}

	@Override
	DataSource dataSource() {
		return TestDatabases.dataSource(TestDatabase.MARIADB);
	}

	/**
	 * With MariaDB Connector/J's bulk protocol a batch's counts are not reported ({@code SUCCESS_NO_INFO}): each
	 * outcome's row is read to tell a written outcome from a late one.
	 */
	@Test
	void aBatchWhoseCountsTheDriverDoesNotReportTellsWrittenOutcomesFromLateOnes() throws Exception {
		HikariDataSource pool = this.dataSource.unwrap(HikariDataSource.class);
		try (HikariDataSource bulk = new HikariDataSource()) {
			bulk.setJdbcUrl(pool.getJdbcUrl() + (pool.getJdbcUrl().contains("?") ? "&" : "?") + "useBulkStmts=true");
			bulk.setUsername(pool.getUsername());
			bulk.setPassword(pool.getPassword());
			bulk.setMaximumPoolSize(4);
			// What this test is about: the driver reports no count for a batched update.
			assertThat(new org.springframework.jdbc.core.JdbcTemplate(bulk).batchUpdate(
					"UPDATE " + TABLE + " SET error = NULL WHERE id = ?", List.of(new Object[] { 1L }, new Object[] { 2L })))
				.containsOnly(Statement.SUCCESS_NO_INFO);
			JdbcLedger ledger = ledger(bulk, BATCH_OF_THREE);
			ClaimRequest written = request("r1", arguments(1));
			ClaimRequest overturned = request("r1", arguments(2));
			ClaimRequest late = request("r1", arguments(3));
			List<Claim.Won> won = claimAll(ledger, List.of(written, overturned, late));
			ledger.recordSucceeded(won.get(0), RESULT);
			ledger.recordSucceeded(won.get(1), RESULT);
			this.jdbc.update("UPDATE " + TABLE + " SET status = 'failed' WHERE idempotency_key = ?", overturned.key().value());
			this.jdbc.update("UPDATE " + TABLE + " SET status = 'succeeded' WHERE idempotency_key = ?", late.key().value());

			ledger.recordFailed(won.get(2), "java.lang.IllegalStateException: out of stock");
			ledger.writePendingOutcomes();

			assertThat(statusInTable(written)).isEqualTo("succeeded");
			assertThat(statusInTable(overturned)).isEqualTo("succeeded");
			assertThat(statusInTable(late)).isEqualTo("succeeded");
			assertThat(ledger.lateSuccesses()).isEqualTo(1);
			assertThat(ledger.lateCompletions()).isEqualTo(1);
			ledger.close();
		}
	}

}
