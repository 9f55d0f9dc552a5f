package io.idempotency.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import com.sun.management.OperatingSystemMXBean;
import io.idempotency.ledger.OutcomeWriteBehind;
import io.idempotency.testsupport.TestDatabase;

/**
 * Where a call's processor time goes, client and server, next to its floor: each path runs on many threads
 * for a while, and the JVM's own processor time and the database server's (every process of the server,
 * read from {@code /proc}, so the server must run on this machine) are divided by the calls made. When the
 * client and the server share the machine's processors, throughput is bounded by the sum of the two, so
 * their ratios to the floor's say which side a throughput gap comes from.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.CpuPerCall [ROUNDS] [THREADS]
 * [DATABASE]}; the first round warms each path up for a minute (the JIT compiler competes with the threads
 * for the processors), the later ones for five seconds. Linux only.
 */
public final class CpuPerCall {

	private static final int MEASURED_SECONDS = 10;

	private static final Set<String> SERVER_PROCESSES = Set.of("postgres", "mariadbd", "mysqld");

	private CpuPerCall() {
	}

	public static void main(String[] args) throws Exception {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 3;
		int threads = (args.length > 1) ? Integer.parseInt(args[1]) : 8;
		TestDatabase database = (args.length > 2) ? TestDatabase.valueOf(args[2]) : TestDatabase.POSTGRESQL;
		long clockTicksPerSecond = clockTicksPerSecond();
		try (BenchmarkDatabase db = new BenchmarkDatabase(database); Agent agent = new Agent(db.dataSource(), false);
				Agent writingBehind = new Agent(db.dataSource(), false,
						new OutcomeWriteBehind(1000, 100, java.time.Duration.ofMillis(5)))) {
			String replayedKey = db.nextKey();
			db.floors().executed(replayedKey, CallBenchmark.ARGUMENTS, CallBenchmark.RESULT);
			Map<String, Call> paths = new LinkedHashMap<>();
			paths.put("executed call", agent::executed);
			paths.put("floor: insert + update", () -> db.floors().executed(db.nextKey(), CallBenchmark.ARGUMENTS,
					CallBenchmark.RESULT));
			paths.put("executed, written behind", writingBehind::executed);
			paths.put("replay", agent::replay);
			paths.put("floor: read by key", () -> db.floors().replay(replayedKey));
			Map<String, List<double[]>> measured = new LinkedHashMap<>();
			paths.keySet().forEach((name) -> measured.put(name, new ArrayList<>()));
			for (int round = 1; round <= rounds; round++) {
				int warmUp = (round == 1) ? 60 : 5;
				for (Map.Entry<String, Call> path : paths.entrySet()) {
					run(path.getValue(), threads, warmUp);
					long clientBefore = clientNanos();
					long serverBefore = serverTicks();
					long started = System.nanoTime();
					long calls = run(path.getValue(), threads, MEASURED_SECONDS);
					double seconds = (System.nanoTime() - started) / 1e9;
					double clientMicros = (clientNanos() - clientBefore) / 1e3 / calls;
					double serverMicros = (serverTicks() - serverBefore) * 1e6 / clockTicksPerSecond / calls;
					measured.get(path.getKey()).add(new double[] { calls / seconds, clientMicros, serverMicros });
					System.out.printf("round %d %-24s %8.0f calls/s   client %6.1f us   server %6.1f us per call%n",
							round, path.getKey(), calls / seconds, clientMicros, serverMicros);
				}
			}
			System.out.printf("%n%s, %d threads, %d rounds of %d s per path; medians (ratio to the floor)%n", database,
					threads, rounds, MEASURED_SECONDS);
			report("executed call", "floor: insert + update", measured);
			report("executed, written behind", "floor: insert + update", measured);
			report("replay", "floor: read by key", measured);
		}
		System.exit(0);
	}

	private static void report(String path, String floor, Map<String, List<double[]>> measured) {
		double floorThroughput = Medians.of(measured.get(floor), 0);
		double floorClient = Medians.of(measured.get(floor), 1);
		double floorServer = Medians.of(measured.get(floor), 2);
		for (String name : List.of(floor, path)) {
			double throughput = Medians.of(measured.get(name), 0);
			double client = Medians.of(measured.get(name), 1);
			double server = Medians.of(measured.get(name), 2);
			System.out.printf("  %-24s %8.0f calls/s (%.2fx)   client %6.1f us (%.2fx)   server %6.1f us (%.2fx)"
					+ "   both %6.1f us (%.2fx)%n", name, throughput, throughput / floorThroughput, client,
					client / floorClient, server, server / floorServer, client + server,
					(client + server) / (floorClient + floorServer));
		}
	}

	/** Calls the path on the given threads for the given time; returns how many calls were made. */
	private static long run(Call call, int threads, int seconds) throws InterruptedException {
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong calls = new AtomicLong();
		AtomicReference<Exception> failure = new AtomicReference<>();
		CountDownLatch done = new CountDownLatch(threads);
		for (int i = 0; i < threads; i++) {
			Thread thread = new Thread(() -> {
				try {
					while (!stop.get()) {
						call.call();
						calls.incrementAndGet();
					}
				}
				catch (Exception ex) {
					failure.compareAndSet(null, ex);
				}
				finally {
					done.countDown();
				}
			});
			thread.start();
		}
		boolean endedEarly = done.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
		stop.set(true);
		done.await();
		if (failure.get() != null) {
			throw new IllegalStateException("A call failed" + (endedEarly ? " and stopped every thread" : ""),
					failure.get());
		}
		return calls.get();
	}

	private static long clientNanos() {
		return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
	}

	/** User and system time of every database server process on this machine, in clock ticks. */
	private static long serverTicks() throws IOException {
		long ticks = 0;
		try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				if (!process.getFileName().toString().chars().allMatch(Character::isDigit)) {
					continue;
				}
				String stat;
				try {
					stat = Files.readString(process.resolve("stat"), StandardCharsets.US_ASCII);
				}
				catch (IOException exited) {
					continue;
				}
				String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
				if (SERVER_PROCESSES.contains(name)) {
					// After the name: state is field 3, utime field 14 and stime field 15.
					String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
					ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
				}
			}
		}
		return ticks;
	}

	private static long clockTicksPerSecond() throws IOException, InterruptedException {
		Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
		String ticks = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
		getconf.waitFor();
		return Long.parseLong(ticks);
	}

	@FunctionalInterface
	private interface Call {

		Object call() throws Exception;

	}

}
