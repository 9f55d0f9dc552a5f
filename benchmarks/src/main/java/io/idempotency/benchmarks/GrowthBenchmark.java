package io.idempotency.benchmarks;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.idempotency.ledger.LedgerEntry;
import io.idempotency.testsupport.TestDatabase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The paths as the table grows: an executed call, a replay, and the reconciler's lease of its oldest
 * stale rows, with {@code rows} settled rows already in the table (and ten stale ones), next to the
 * floor of one read by key at the same size. Compare each path's median across sizes (target: within
 * 1.3x of the smallest; the lease flat). The plans of the claim and of the stale fetch are printed at
 * set-up. PostgreSQL and MariaDB; {@code -p rows=10000000} for ten million (it takes minutes to fill).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class GrowthBenchmark {

	@Param({ "POSTGRESQL" })
	public TestDatabase database;

	@Param({ "10000", "1000000" })
	public int rows;

	private BenchmarkDatabase db;

	private Agent agent;

	private String replayedKey;

	@Setup(Level.Trial)
	public void setUp() throws SQLException {
		this.db = new BenchmarkDatabase(this.database);
		JdbcTemplate jdbc = new JdbcTemplate(this.db.dataSource());
		String table = BenchmarkDatabase.TABLE;
		if (this.database == TestDatabase.POSTGRESQL) {
			jdbc.update("INSERT INTO " + table + " (idempotency_key, run_id, user_id, tool, arguments, status, result,"
					+ " started_at, finished_at) SELECT md5(i::text) || md5((-i)::text), 'run-' || i, 'user-1', 'note',"
					+ " '{\"account\":\"Henderson Industrial\",\"quantity\":200}', CASE WHEN i % 10 = 0 THEN 'failed'"
					+ " ELSE 'succeeded' END, '{\"quantity\":200}', CURRENT_TIMESTAMP - INTERVAL '1 day',"
					+ " CURRENT_TIMESTAMP - INTERVAL '1 day' FROM generate_series(1, ?) AS i", this.rows);
			jdbc.execute("VACUUM ANALYZE " + table);
		}
		else if (this.database == TestDatabase.MARIADB) {
			jdbc.update("INSERT INTO " + table + " (idempotency_key, run_id, user_id, tool, arguments, status, result,"
					+ " started_at, finished_at) SELECT CONCAT(MD5(seq), MD5(-seq)), CONCAT('run-', seq), 'user-1',"
					+ " 'note', '{\"account\":\"Henderson Industrial\",\"quantity\":200}', IF(seq % 10 = 0, 'failed',"
					+ " 'succeeded'), '{\"quantity\":200}', UTC_TIMESTAMP(6) - INTERVAL 1 DAY, UTC_TIMESTAMP(6) -"
					+ " INTERVAL 1 DAY FROM seq_1_to_" + this.rows);
			jdbc.execute("ANALYZE TABLE " + table);
		}
		else {
			throw new IllegalArgumentException("GrowthBenchmark runs on POSTGRESQL or MARIADB, not " + this.database);
		}
		this.agent = new Agent(this.db.dataSource(), false);
		String anHourAgo = (this.database == TestDatabase.POSTGRESQL) ? "CURRENT_TIMESTAMP - INTERVAL '1 hour'"
				: "UTC_TIMESTAMP(6) - INTERVAL 1 HOUR";
		for (int i = 0; i < 10; i++) {
			jdbc.update("INSERT INTO " + table + " (idempotency_key, run_id, user_id, tool, arguments, status,"
					+ " started_at) VALUES (?, 'stale', 'user-1', 'note', '{}', 'unknown', " + anHourAgo + ")",
					this.db.nextKey());
		}
		this.replayedKey = this.db.nextKey();
		this.db.floors().executed(this.replayedKey, CallBenchmark.ARGUMENTS, CallBenchmark.RESULT);
		printPlans(jdbc);
	}

	private void printPlans(JdbcTemplate jdbc) {
		String table = BenchmarkDatabase.TABLE;
		String explain = (this.database == TestDatabase.POSTGRESQL) ? "EXPLAIN (ANALYZE, BUFFERS) " : "EXPLAIN ";
		String byKey = "SELECT status, result FROM " + table + " WHERE idempotency_key = '" + this.replayedKey + "'";
		String stale = (this.database == TestDatabase.POSTGRESQL)
				? "SELECT id FROM " + table + " WHERE status IN ('attempting', 'unknown') AND started_at <"
						+ " CURRENT_TIMESTAMP ORDER BY started_at LIMIT 100"
				: "SELECT id FROM " + table + " WHERE unsettled_since IS NOT NULL AND unsettled_since <"
						+ " UTC_TIMESTAMP(6) ORDER BY unsettled_since LIMIT 100";
		for (String query : List.of(byKey, stale)) {
			System.out.println("Plan at " + this.rows + " rows: " + query);
			jdbc.queryForList(explain + query).forEach((line) -> System.out.println("  " + line.values()));
		}
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.agent.close();
		this.db.close();
	}

	@Benchmark
	public String floorReadByKey() throws SQLException {
		return this.db.floors().replay(this.replayedKey);
	}

	@Benchmark
	public Object executed() {
		return this.agent.executed();
	}

	@Benchmark
	public Object replay() {
		return this.agent.replay();
	}

	@Benchmark
	public List<LedgerEntry> leaseStale() {
		// A lease of one microsecond: the same ten rows are stale again for the next call.
		return this.agent.ledger().leaseStale(Duration.ofSeconds(1), 100, Duration.ofNanos(1_000));
	}

}
