package io.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.idempotency.ToolCallInProgressException;
import io.idempotency.testsupport.TestDatabase;

/**
 * Many callers of one key at once, as when an agent framework retries a call that is still running: 32
 * threads, released together, each making the same call in the same run. Reports, over many rounds, the
 * time until every caller has its answer (median and worst) next to the floor of 32 threads each
 * reading one row at once, and how many times the tool ran in each round, which must be once. Run it
 * with {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.Contention [DATABASE...]}.
 */
public final class Contention {

	private static final int THREADS = 32;

	private static final int ROUNDS = 200;

	private Contention() {
	}

	public static void main(String[] args) throws Exception {
		List<TestDatabase> databases = (args.length == 0) ? List.of(TestDatabase.POSTGRESQL, TestDatabase.MARIADB)
				: Arrays.stream(args).map(TestDatabase::valueOf).toList();
		for (TestDatabase database : databases) {
			try (BenchmarkDatabase db = new BenchmarkDatabase(database); Agent agent = new Agent(db.dataSource(), false)) {
				String replayed = db.nextKey();
				db.floors().executed(replayed, CallBenchmark.ARGUMENTS, CallBenchmark.RESULT);
				ExecutorService pool = Executors.newFixedThreadPool(THREADS);
				try {
					long[] calls = new long[ROUNDS];
					long[] floors = new long[ROUNDS];
					long executionsBefore = agent.executions();
					int roundsNotOnce = 0;
					for (int round = 0; round < ROUNDS; round++) {
						String run = "contended-" + round;
						long before = agent.executions();
						calls[round] = allAnswered(pool, () -> inProgressIsAnAnswer(() -> agent.inRun(run)));
						if (agent.executions() - before != 1) {
							roundsNotOnce++;
						}
						floors[round] = allAnswered(pool, () -> db.floors().replay(replayed));
					}
					Arrays.sort(calls);
					Arrays.sort(floors);
					System.out.printf("%s: %d threads on one key, %d rounds%n", database, THREADS, ROUNDS);
					System.out.printf("  until all answered: median %.2f ms (worst %.2f ms); floor (%d reads at once)"
							+ " median %.2f ms; ratio %.2f%n", calls[ROUNDS / 2] / 1e6, calls[ROUNDS - 1] / 1e6, THREADS,
							floors[ROUNDS / 2] / 1e6, (double) calls[ROUNDS / 2] / floors[ROUNDS / 2]);
					System.out.printf("  executions: %d in %d rounds; rounds not executed exactly once: %d%n",
							agent.executions() - executionsBefore, ROUNDS, roundsNotOnce);
				}
				finally {
					pool.shutdownNow();
				}
			}
		}
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private interface Call {

		Object call() throws Exception;

	}

	/** A caller that finds the call still running is told so: that is its answer, not a failure. */
	private static Object inProgressIsAnAnswer(Call call) throws Exception {
		try {
			return call.call();
		}
		catch (ToolCallInProgressException inProgress) {
			return inProgress;
		}
	}

	/** Releases the threads together and returns the nanoseconds until the last has its answer. */
	private static long allAnswered(ExecutorService pool, Call call) throws Exception {
		CyclicBarrier start = new CyclicBarrier(THREADS + 1);
		List<Future<?>> answers = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			answers.add(pool.submit(() -> {
				start.await();
				return call.call();
			}));
		}
		start.await();
		long began = System.nanoTime();
		for (Future<?> answer : answers) {
			answer.get();
		}
		return System.nanoTime() - began;
	}

}
