package io.idempotency.benchmarks;

import java.sql.Connection;
import java.util.Map;

import io.idempotency.testsupport.TestDatabase;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * What one call writes to PostgreSQL's write-ahead log, and whether its outcome's update is a HOT update
 * (no new index entries), next to the floor's same statements by hand. Run it with
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.WalPerCall}.
 */
public final class WalPerCall {

	private static final int CALLS = 10_000;

	private WalPerCall() {
	}

	public static void main(String[] args) throws Exception {
		try (BenchmarkDatabase db = new BenchmarkDatabase(TestDatabase.POSTGRESQL);
				Connection connection = db.dataSource().getConnection()) {
			// Every call on one connection, whose statistics are flushed before they are read.
			SingleConnectionDataSource single = new SingleConnectionDataSource(connection, true);
			JdbcTemplate jdbc = new JdbcTemplate(single);
			Floors floors = new Floors(TestDatabase.POSTGRESQL, single);
			try (Agent agent = new Agent(single, false)) {
				measure("executed call", jdbc, () -> agent.executed());
				measure("floor: insert and update by hand", jdbc,
						() -> floors.executed(db.nextKey(), CallBenchmark.ARGUMENTS, CallBenchmark.RESULT));
				measure("replay (counts flushed afterwards)", jdbc, () -> agent.replay());
				long lsn = lsn(jdbc);
				agent.ledger().flushReplayCounts();
				System.out.printf("  flushing the replay counts of one key: %d WAL bytes%n", lsn(jdbc) - lsn);
			}
		}
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private interface Call {

		Object call() throws Exception;

	}

	private static void measure(String path, JdbcTemplate jdbc, Call call) throws Exception {
		Map<String, Object> before = updates(jdbc);
		long lsn = lsn(jdbc);
		for (int i = 0; i < CALLS; i++) {
			call.call();
		}
		long wal = lsn(jdbc) - lsn;
		Map<String, Object> after = updates(jdbc);
		long updates = ((Number) after.get("n_tup_upd")).longValue() - ((Number) before.get("n_tup_upd")).longValue();
		long hot = ((Number) after.get("n_tup_hot_upd")).longValue()
				- ((Number) before.get("n_tup_hot_upd")).longValue();
		System.out.printf("%-40s %7.0f WAL bytes per call; updates %d, of which HOT %d%n", path, (double) wal / CALLS,
				updates, hot);
	}

	private static long lsn(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn", Long.class);
	}

	private static Map<String, Object> updates(JdbcTemplate jdbc) {
		jdbc.execute("SELECT pg_stat_force_next_flush()");
		return jdbc.queryForMap("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = ?",
				BenchmarkDatabase.TABLE);
	}

}
