package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresqlLedgerTest extends LedgerContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

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

	@Test
	void aReplayWritesNothingAndUsesUpNoIdentityValue() {
		ClaimRequest first = request("r1", "{\"n\":1}");
		this.ledger.claim(first);
		this.ledger.recordSucceeded(first.key(), "{}");
		for (int i = 0; i < 5; i++) {
			assertThat(this.ledger.claim(first)).isInstanceOf(Claim.Replay.class);
		}
		ClaimRequest second = request("r1", "{\"n\":2}");
		this.ledger.claim(second);

		assertThat(this.ledger.find(second.key()).orElseThrow().id())
			.isEqualTo(this.ledger.find(first.key()).orElseThrow().id() + 1);
	}

	@Test
	void aClaimThatLosesToAWinnerCommittedAfterItsSnapshotReadsTheWinnersRow() throws Exception {
		ClaimRequest request = request("r1", ARGUMENTS);
		ExecutorService loser = Executors.newSingleThreadExecutor();
		try (Connection winner = this.dataSource.getConnection()) {
			winner.setAutoCommit(false);
			try (PreparedStatement insert = winner.prepareStatement("INSERT INTO " + TABLE
					+ " (idempotency_key, run_id, user_id, tool, arguments, status, started_at) VALUES (?, 'r0', ?,"
					+ " 'open_ticket', '{}', 'attempting', CURRENT_TIMESTAMP)")) {
				insert.setString(1, request.key().value());
				insert.setString(2, USER);
				insert.executeUpdate();
			}
			// The claim reads no row, then its insert waits on the winner's uncommitted one.
			Future<Claim> claim = loser.submit(() -> this.ledger.claim(request));
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> this.jdbc.queryForObject("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
						+ " AND query LIKE 'WITH existing AS%'", Integer.class) == 1);
			winner.commit();

			assertThat(claim.get(30, TimeUnit.SECONDS)).isInstanceOfSatisfying(Claim.InProgress.class,
					(inProgress) -> assertThat(inProgress.entry().runId()).isEqualTo("r1"));
		}
		finally {
			loser.shutdownNow();
		}
	}

	private static LedgerStatements statements() {
		return new LedgerStatements(LedgerDialect.POSTGRESQL, TableName.of(TABLE));
	}

}
