package io.idempotency.benchmarks;

import java.util.Map;

import io.idempotency.testsupport.TestDatabase;

import org.springframework.jdbc.core.JdbcTemplate;

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
				Agent agent = new Agent(db.dataSource(), false)) {
			JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
			measure("executed call", jdbc, CALLS, () -> agent.executed());
			measure("floor: insert and update by hand", jdbc, CALLS,
					() -> db.floors().executed(db.nextKey(), CallBenchmark.ARGUMENTS, CallBenchmark.RESULT));
			measure("replay (counts flushed afterwards)", jdbc, 0, () -> agent.replay());
			long lsn = lsn(jdbc);
			agent.ledger().flushReplayCounts();
			System.out.printf("  flushing the replay counts of one key: %d WAL bytes%n", lsn(jdbc) - lsn);
		}
	}

	private interface Call {

		Object call() throws Exception;

	}

	private static void measure(String path, JdbcTemplate jdbc, long expectedUpdates, Call call) throws Exception {
		Map<String, Object> before = updates(jdbc);
		long lsn = lsn(jdbc);
		for (int i = 0; i < CALLS; i++) {
			call.call();
		}
		long wal = lsn(jdbc) - lsn;
		Map<String, Object> after = awaitStatistics(jdbc, before, expectedUpdates);
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
		return jdbc.queryForMap("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = ?",
				BenchmarkDatabase.TABLE);
	}

	/** Table statistics reach the view when each connection flushes them: wait until all have arrived. */
	private static Map<String, Object> awaitStatistics(JdbcTemplate jdbc, Map<String, Object> before,
			long expectedUpdates) throws InterruptedException {
		long deadline = System.nanoTime() + 15_000_000_000L;
		Map<String, Object> now = updates(jdbc);
		while (System.nanoTime() < deadline) {
			long updates = ((Number) now.get("n_tup_upd")).longValue() - ((Number) before.get("n_tup_upd")).longValue();
			if (updates >= expectedUpdates && expectedUpdates > 0) {
				return now;
			}
			Thread.sleep(100);
			now = updates(jdbc);
		}
		return now;
	}

}
