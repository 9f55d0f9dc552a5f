package io.idempotency.benchmarks;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.idempotency.ledger.OutcomeWriteBehind;
import io.idempotency.testsupport.CountingDataSource;
import io.idempotency.testsupport.TestDatabase;

/**
 * Counts the round trips of each path of a tool call, and of its floor, through a counting
 * {@code DataSource}: every statement, commit, rollback and isolation query is one. Run it with
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.RoundTrips [DATABASE...]}.
 */
public final class RoundTrips {

	private static final int CALLS = 100;

	private RoundTrips() {
	}

	public static void main(String[] args) throws Exception {
		List<TestDatabase> databases = (args.length == 0) ? List.of(TestDatabase.POSTGRESQL, TestDatabase.MARIADB,
				TestDatabase.H2) : java.util.Arrays.stream(args).map(TestDatabase::valueOf).toList();
		for (TestDatabase database : databases) {
			try (BenchmarkDatabase db = new BenchmarkDatabase(database)) {
				CountingDataSource counting = new CountingDataSource(db.dataSource());
				Map<String, Double> perCall = new TreeMap<>();
				try (Agent agent = new Agent(counting, false); Agent caching = new Agent(counting, true)) {
					perCall.put("executed", count(counting, agent::executed));
					perCall.put("executed in transaction", count(counting, agent::executedInTransaction));
					// A tool's calls are read first while most of its latest 64 are repeats: its first 40 repeats after
					// 100 calls that executed are claimed, the rest read; then its first 16 calls that execute are read
					// first too, before the tool is claimed first again.
					perCall.put("replay, of a tool whose calls mostly execute", count(counting, 40, agent::replay));
					repeat(24, agent::replay);
					perCall.put("replay", count(counting, agent::replay));
					perCall.put("executed, of a tool whose calls are mostly repeats", count(counting, 16, agent::executed));
					caching.replay();
					perCall.put("replay, answered from memory", count(counting, caching::replay));
					String replayed = db.nextKey();
					db.floors().executed(replayed, CallBenchmark.ARGUMENTS, CallBenchmark.RESULT);
					CountingDataSource counted = new CountingDataSource(db.dataSource());
					Floors floors = new Floors(database, counted);
					perCall.put("floor: executed", count(counted, () -> unchecked(
							() -> floors.executed(db.nextKey(), CallBenchmark.ARGUMENTS, CallBenchmark.RESULT))));
					perCall.put("floor: executed in one transaction", count(counted, () -> unchecked(
							() -> floors.executedInOneTransaction(db.nextKey(), CallBenchmark.ARGUMENTS, CallBenchmark.RESULT))));
					perCall.put("floor: replay", count(counted, () -> unchecked(() -> floors.replay(replayed))));
					CountingDataSource manualCommit = new CountingDataSource(db.withAutoCommitOff());
					try (Agent onManualCommit = new Agent(manualCommit, false)) {
						perCall.put("executed, pool with auto-commit off", count(manualCommit, onManualCommit::executed));
						repeat(64, onManualCommit::replay);
						perCall.put("replay, pool with auto-commit off", count(manualCommit, onManualCommit::replay));
					}
					// Outcomes written behind their callers, in one batch written at once at the end (an hour's delay
					// keeps the batch from being written while the calls are counted).
					CountingDataSource behind = new CountingDataSource(db.dataSource());
					try (Agent writingBehind = new Agent(behind, false,
							new OutcomeWriteBehind(2 * CALLS, 2 * CALLS, java.time.Duration.ofHours(1)))) {
						perCall.put("executed, outcome written behind", count(behind, writingBehind::executed));
						behind.reset();
						writingBehind.ledger().writePendingOutcomes();
						perCall.put("executed, outcome written behind: its batch", (double) behind.roundTrips() / CALLS);
					}
					counting.reset();
					agent.ledger().leaseStale(java.time.Duration.ZERO, 100, java.time.Duration.ofMinutes(5));
					perCall.put("reconciler: lease up to 100 stale rows", (double) counting.roundTrips());
					counting.reset();
					agent.ledger().flushReplayCounts();
				}
				System.out.println(database + " round trips per call (" + CALLS + " calls each)");
				perCall.forEach((path, trips) -> System.out.printf("  %-40s %5.2f%n", path, trips));
			}
		}
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private static double count(CountingDataSource counting, Supplier<?> call) {
		return count(counting, CALLS, call);
	}

	private static double count(CountingDataSource counting, int calls, Supplier<?> call) {
		counting.reset();
		repeat(calls, call);
		return (double) counting.roundTrips() / calls;
	}

	private static void repeat(int calls, Supplier<?> call) {
		for (int i = 0; i < calls; i++) {
			call.get();
		}
	}

	private interface SqlCall {

		Object call() throws Exception;

	}

	private static Object unchecked(SqlCall call) {
		try {
			return call.call();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
