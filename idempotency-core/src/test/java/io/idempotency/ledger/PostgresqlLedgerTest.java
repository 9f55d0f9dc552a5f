package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

	/**
	 * Every write of a claimed row reads the row through the primary key (or, where it has only the key, the
	 * unique key), never through the partial index of unsettled rows, even when the statistics, taken before
	 * the unsettled rows came, say there are none: then that index looked free to the planner, and reading it
	 * read every unsettled row. Asserted on the plans, generic and custom, not on a time.
	 */
	@Test
	void theWritesOfAClaimedRowReadItByItsIdHoweverStaleTheStatistics() {
		this.jdbc.execute("ALTER TABLE " + TABLE + " SET (autovacuum_enabled = false)");
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, result, started_at,"
				+ " finished_at) SELECT md5('s' || i) || md5('t' || i), 'r', 't', '{}', 'succeeded', '{}',"
				+ " CURRENT_TIMESTAMP - INTERVAL '1 day', CURRENT_TIMESTAMP FROM generate_series(1, 20000) AS i");
		this.jdbc.execute("ANALYZE " + TABLE);
		// Unsettled rows the statistics do not know of: a burst of timeouts before the next analyse.
		this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments, status, started_at)"
				+ " SELECT md5('u' || i) || md5('v' || i), 'r', 't', '{}', 'attempting', CURRENT_TIMESTAMP"
				+ " - INTERVAL '1 hour' FROM generate_series(1, 2000) AS i");
		ClaimRequest request = request("r1", ARGUMENTS);
		assertThat(this.ledger.claim(request)).isInstanceOf(Claim.Won.class);
		long id = this.ledger.find(request.key()).orElseThrow().id();
		String key = "'" + request.key().value() + "'";
		LedgerStatements sql = statements();
		SettlementStatements settlements = new SettlementStatements(this.jdbc, LedgerDialect.POSTGRESQL,
				TableName.of(TABLE), null, null);
		String byId = TABLE + "_pk";
		String byKey = TABLE + "_key_uk";

		assertThat(indexesRead(sql.recordOutcome, "'succeeded', '{}', NULL, " + id)).containsExactly(byId);
		assertThat(indexesRead(sql.overturnFailure, "'{}', NULL, " + id)).containsExactly(byId);
		assertThat(indexesRead(sql.heartbeat(2), id + ", " + (id - 1))).containsExactly(byId);
		assertThat(indexesRead(sql.resolve, "'failed', NULL, 'no effect', " + id + ", 'owner'")).containsExactly(byId);
		assertThat(indexesRead(sql.postpone, "1000000, " + id + ", 'owner'")).containsExactly(byId);
		assertThat(indexesRead(settlements.settle, "'failed', NULL, 'declined', 'ops', 'checked', " + key + ", 3"))
			.containsExactly(byKey);
		assertThat(indexesRead(settlements.sendBack, "0, 'ops', 'retry', " + key + ", 3")).containsExactly(byKey);
	}

	/** The indexes the plans of a statement read, generic and custom (as a prepared statement's first runs). */
	private List<String> indexesRead(String statement, String parameters) {
		return this.jdbc.execute((Connection connection) -> {
			Set<String> indexes = new TreeSet<>();
			try (Statement sql = connection.createStatement()) {
				StringBuilder numbered = new StringBuilder();
				int n = 0;
				for (char c : statement.toCharArray()) {
					numbered.append((c == '?') ? "$" + (++n) : String.valueOf(c));
				}
				sql.execute("PREPARE stale_plan AS " + numbered);
				try {
					for (String mode : List.of("force_generic_plan", "force_custom_plan")) {
						sql.execute("SET plan_cache_mode = " + mode);
						try (ResultSet plan = sql.executeQuery(
								"EXPLAIN (FORMAT JSON) EXECUTE stale_plan(" + parameters + ")")) {
							plan.next();
							Matcher index = Pattern.compile("\"Index Name\": \"([^\"]+)\"")
								.matcher(plan.getString(1));
							boolean any = false;
							while (index.find()) {
								indexes.add(index.group(1));
								any = true;
							}
							if (!any) {
								indexes.add("(" + mode + ": no index) " + plan.getString(1));
							}
						}
					}
				}
				finally {
					sql.execute("DEALLOCATE stale_plan");
					sql.execute("RESET plan_cache_mode");
				}
			}
			return List.copyOf(indexes);
		});
	}

	@Test
	void aReplayWritesNothingAndUsesUpNoIdentityValue() {
		ClaimRequest first = request("r1", "{\"n\":1}");
		Claim.Won firstClaim = won(this.ledger.claim(first));
		this.ledger.recordSucceeded(firstClaim, "{}");
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
