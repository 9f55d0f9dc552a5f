package io.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * {@link CallBenchmark}'s paths next to their floors in interleaved rounds: each round runs every path
 * and its floor in a fresh JVM, alternating which goes first, and the ratio is taken within the round.
 * Prints each round's ratios, then their median and spread; on a shared, noisy machine the spread says
 * how far to trust a difference.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.Rounds [ROUNDS] [THREADS]
 * [DATABASE] [PATH,...]}, by default 5 rounds, 1 thread, PostgreSQL and every path: one thread measures latency (the median of JMH's sample mode); more measure throughput,
 * after a warm-up long enough for the JIT to finish compiling the library's path while that many threads
 * compete with it for the processors (on two cores it takes most of a minute, and a shorter warm-up
 * measures the compiler, not the call).
 */
public final class Rounds {

	/** Each path and a floor it is measured against; a path may be measured against more than one. */
	private static final List<Map.Entry<String, String>> PAIRS = List.of(Map.entry("executed", "floorExecuted"),
			Map.entry("executedInTransaction", "floorExecutedInOneTransaction"), Map.entry("replay", "floorReplay"),
			Map.entry("replayByTheClaimStatementByHand", "floorReplay"),
			Map.entry("executedWriteBehind", "floorOneStatement"), Map.entry("executedWriteBehind", "floorExecuted"));

	private Rounds() {
	}

	public static void main(String[] args) throws RunnerException {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 5;
		int threads = (args.length > 1) ? Integer.parseInt(args[1]) : 1;
		String database = (args.length > 2) ? args[2] : "POSTGRESQL";
		List<Map.Entry<String, String>> pairs = new ArrayList<>(PAIRS);
		if (args.length > 3) {
			List<String> chosen = List.of(args[3].split(","));
			for (String path : chosen) {
				if (PAIRS.stream().noneMatch((pair) -> pair.getKey().equals(path))) {
					throw new IllegalArgumentException("No path '" + path + "'; the paths are "
							+ PAIRS.stream().map(Map.Entry::getKey).distinct().toList());
				}
			}
			pairs.removeIf((pair) -> !chosen.contains(pair.getKey()));
		}
		Map<String, List<Double>> ratios = new LinkedHashMap<>();
		pairs.forEach((pair) -> ratios.put(name(pair), new ArrayList<>()));
		// At one thread, with both replays measured: the library's own time on a replay, the whole call less the
		// same claim statement sent by hand. The figure to watch when the replay path changes.
		List<String> measured = pairs.stream().map(Map.Entry::getKey).toList();
		boolean replayOwnTime = threads == 1 && measured.contains("replay")
				&& measured.contains("replayByTheClaimStatementByHand");
		List<Double> ownTimes = new ArrayList<>();
		for (int round = 1; round <= rounds; round++) {
			Map<String, Double> scores = new LinkedHashMap<>();
			boolean floorsFirst = (round % 2 == 1);
			for (Map.Entry<String, String> pair : pairs) {
				List<String> order = floorsFirst ? List.of(pair.getValue(), pair.getKey())
						: List.of(pair.getKey(), pair.getValue());
				for (String benchmark : order) {
					if (!scores.containsKey(benchmark)) {
						scores.put(benchmark, score(benchmark, threads, database));
					}
				}
			}
			StringBuilder line = new StringBuilder("round " + round + ":");
			for (Map.Entry<String, String> pair : pairs) {
				// Latency: above 1 is slower than the floor. Throughput: below 1 is.
				double ratio = scores.get(pair.getKey()) / scores.get(pair.getValue());
				ratios.get(name(pair)).add(ratio);
				line.append(String.format("  %s %.2fx (%.0f vs %.0f %s)", name(pair), ratio, scores.get(pair.getKey()),
						scores.get(pair.getValue()), (threads == 1) ? "us" : "/s"));
			}
			if (replayOwnTime) {
				double own = scores.get("replay") - scores.get("replayByTheClaimStatementByHand");
				ownTimes.add(own);
				line.append(String.format("  the library's own time on a replay %.0f us", own));
			}
			System.out.println(line);
		}
		System.out.printf("%n%s, %s, %d rounds: %s to the floor (median, lowest-highest)%n", database,
				(threads == 1) ? "1 thread, median latency" : threads + " threads, throughput", rounds,
				(threads == 1) ? "latency" : "throughput");
		ratios.forEach((pair, values) -> System.out.printf("  %-64s %.2fx (%.2f-%.2f)%n", pair, Medians.of(values),
				values.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
				values.stream().mapToDouble(Double::doubleValue).max().orElseThrow()));
		if (replayOwnTime) {
			System.out.printf("  the library's own time on a replay (replay less the claim statement by hand): %.0f us"
					+ " (%.0f-%.0f)%n", Medians.of(ownTimes), ownTimes.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
					ownTimes.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
		}
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private static String name(Map.Entry<String, String> pair) {
		return pair.getKey() + " vs " + pair.getValue();
	}

	private static double score(String benchmark, int threads, String database) throws RunnerException {
		ChainedOptionsBuilder options = new OptionsBuilder()
			.include(CallBenchmark.class.getName() + "." + benchmark + "$")
			.param("database", database)
			.param("replayCache", "false")
			.forks(1)
			.threads(threads)
			.shouldFailOnError(true)
			.verbosity(VerboseMode.SILENT);
		if (threads == 1) {
			options.mode(Mode.SampleTime).timeUnit(TimeUnit.MICROSECONDS);
		}
		else {
			options.mode(Mode.Throughput)
				.timeUnit(TimeUnit.SECONDS)
				.warmupIterations(20)
				.warmupTime(TimeValue.seconds(3))
				.measurementIterations(4)
				.measurementTime(TimeValue.seconds(3));
		}
		Collection<RunResult> results = new Runner(options.build()).run();
		RunResult result = results.iterator().next();
		if (threads == 1) {
			return result.getPrimaryResult().getStatistics().getPercentile(50);
		}
		return result.getPrimaryResult().getScore();
	}

}
