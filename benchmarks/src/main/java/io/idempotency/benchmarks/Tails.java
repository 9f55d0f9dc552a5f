package io.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.Statistics;

/**
 * The latency of each of {@link CallBenchmark}'s paths at its median and in its tails (p50, p99, p99.9, from
 * JMH's sample mode, every call timed), beside the same percentiles of its floor, each in a fresh JVM, the floor
 * first: what a caller waits, not only on average.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.Tails [THREADS] [DATABASE]}, by
 * default 1 thread and PostgreSQL. Above one thread the warm-up is a minute, as in {@link Rounds}: on two cores
 * the JIT compiler competes with the threads for that long.
 */
public final class Tails {

	/** Each path, and its floor. */
	private static final List<String[]> PAIRS = List.of(new String[] { "executed", "floorExecuted" },
			new String[] { "executedInTransaction", "floorExecutedInOneTransaction" },
			new String[] { "executedWriteBehind", "floorOneStatement" }, new String[] { "replay", "floorReplay" });

	private static final double[] PERCENTILES = { 50, 99, 99.9 };

	private Tails() {
	}

	public static void main(String[] args) throws RunnerException {
		int threads = (args.length > 0) ? Integer.parseInt(args[0]) : 1;
		String database = (args.length > 1) ? args[1] : "POSTGRESQL";
		List<String> lines = new ArrayList<>();
		for (String[] pair : PAIRS) {
			Statistics floor = sample(pair[1], threads, database);
			Statistics path = sample(pair[0], threads, database);
			lines.add(line(pair[1], floor, null));
			lines.add(line(pair[0], path, floor));
		}
		System.out.printf("%n%s, %d thread%s, latency in microseconds: p50 / p99 / p99.9 (ratio to the floor's)%n",
				database, threads, (threads == 1) ? "" : "s");
		lines.forEach(System.out::println);
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private static String line(String benchmark, Statistics measured, Statistics floor) {
		StringBuilder line = new StringBuilder(String.format("  %-32s", benchmark));
		for (double percentile : PERCENTILES) {
			double value = measured.getPercentile(percentile);
			line.append(String.format("  %9.0f", value));
			if (floor != null) {
				line.append(String.format(" (%.2fx)", value / floor.getPercentile(percentile)));
			}
			else {
				line.append("        ");
			}
		}
		return line.toString();
	}

	private static Statistics sample(String benchmark, int threads, String database) throws RunnerException {
		OptionsBuilder options = new OptionsBuilder();
		options.include(CallBenchmark.class.getName() + "." + benchmark + "$")
			.param("database", database)
			.param("replayCache", "false")
			.forks(1)
			.threads(threads)
			.mode(Mode.SampleTime)
			.timeUnit(TimeUnit.MICROSECONDS)
			.shouldFailOnError(true)
			.verbosity(VerboseMode.SILENT)
			.warmupIterations((threads == 1) ? 10 : 20)
			.warmupTime(TimeValue.seconds((threads == 1) ? 2 : 3))
			.measurementIterations(5)
			.measurementTime(TimeValue.seconds(3));
		Collection<RunResult> results = new Runner(options.build()).run();
		return results.iterator().next().getPrimaryResult().getStatistics();
	}

}
