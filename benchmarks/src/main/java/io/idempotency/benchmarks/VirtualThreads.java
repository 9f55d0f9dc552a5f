package io.idempotency.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.testsupport.TestDatabase;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A thousand tool calls at once through a pool of ten connections, as an agent that fans its calls out makes
 * them in an application with {@code spring.threads.virtual.enabled}: on virtual threads, one per call; on a
 * thousand platform threads; and on two hundred (Tomcat's default maximum), each next to the floor made on the
 * same threads in the same round (the claim's insert and the outcome's update by hand, for as many calls).
 * A round measures every shape, in an order that turns each round; the ratios are taken within the round.
 * Each round also makes a thousand callers of a hundred keys at once, ten per key, on virtual threads and on a
 * thousand platform threads: each key must execute once. While the virtual threads run, a flight recording
 * counts the carrier threads they pin ({@code jdk.VirtualThreadPinned}), which must be none.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.VirtualThreads [ROUNDS] [DATABASE...]},
 * by default 7 rounds (after 3 of warm-up) on PostgreSQL and MariaDB. Needs Java 21 (virtual threads); run it on
 * Java 24 or later, where a thread that waits inside a monitor no longer pins its carrier, so that what the
 * recording counts is the call path's own.
 */
public final class VirtualThreads {

	private static final int CALLS = 1_000;

	private static final int CONNECTIONS = 10;

	private static final int KEYS = 100;

	private static final int WARM_UP_ROUNDS = 3;

	private static final String PINNED = "jdk.VirtualThreadPinned";

	private static final String VIRTUAL = "virtual threads, one per call";

	private static final String PLATFORM = "1,000 platform threads";

	private VirtualThreads() {
	}

	public static void main(String[] args) throws Exception {
		if (Runtime.version().feature() < 21) {
			throw new IllegalStateException("Virtual threads need Java 21 or later; this is Java " + Runtime.version());
		}
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 7;
		List<TestDatabase> databases = (args.length > 1)
				? Arrays.stream(args, 1, args.length).map(TestDatabase::valueOf).toList()
				: List.of(TestDatabase.POSTGRESQL, TestDatabase.MARIADB);
		ExecutorService platform = prestarted(CALLS);
		ExecutorService tomcat = prestarted(200);
		try {
			for (TestDatabase database : databases) {
				measure(database, rounds, platform, tomcat);
			}
		}
		finally {
			platform.shutdownNow();
			tomcat.shutdownNow();
		}
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private static void measure(TestDatabase database, int rounds, ExecutorService platform, ExecutorService tomcat)
			throws Exception {
		try (BenchmarkDatabase db = new BenchmarkDatabase(database);
				HikariDataSource pool = db.poolOf(CONNECTIONS, "benchmark-ten");
				Agent agent = new Agent(pool, false)) {
			Floors floors = new Floors(database, pool);
			Map<String, Threads> shapes = new LinkedHashMap<>();
			shapes.put(VIRTUAL, Threads.oneVirtualPerCall());
			shapes.put(PLATFORM, Threads.pooled(platform));
			shapes.put("200 platform threads", Threads.pooled(tomcat));
			Map<String, List<Double>> perSecond = new LinkedHashMap<>();
			long pinned = 0;
			long executionsBefore = agent.executions();
			int[] sharedNotOnce = new int[1];
			for (int round = 0; round < WARM_UP_ROUNDS + rounds; round++) {
				boolean counted = round >= WARM_UP_ROUNDS;
				List<String> order = new ArrayList<>(shapes.keySet());
				Collections.rotate(order, round);
				for (String shape : order) {
					Threads threads = shapes.get(shape);
					Measured library = threads.run(agent::executed);
					Measured floor = threads.run(
							() -> floors.executed(db.nextKey(), CallBenchmark.ARGUMENTS, CallBenchmark.RESULT));
					Measured shared = shape.equals(VIRTUAL) || shape.equals(PLATFORM)
							? sharedKeys(agent, new JdbcTemplate(pool), threads, sharedNotOnce) : null;
					if (counted) {
						add(perSecond, shape, library.perSecond());
						add(perSecond, shape + ", floor", floor.perSecond());
						add(perSecond, shape + ", of the floor", library.perSecond() / floor.perSecond());
						pinned += library.pinned();
						if (shared != null) {
							add(perSecond, shape + ", shared keys", shared.perSecond());
							pinned += shared.pinned();
						}
					}
				}
				if (counted) {
					add(perSecond, "virtual over platform", last(perSecond, VIRTUAL) / last(perSecond, PLATFORM));
					add(perSecond, "virtual over platform, shared keys",
							last(perSecond, VIRTUAL + ", shared keys") / last(perSecond, PLATFORM + ", shared keys"));
				}
			}
			long executed = agent.executions() - executionsBefore;
			int distinct = (WARM_UP_ROUNDS + rounds) * shapes.size() * CALLS;
			int keys = distinct + (WARM_UP_ROUNDS + rounds) * 2 * KEYS;

			System.out.printf("%s: %,d calls at once through %d connections, %d rounds after %d of warm-up (median, lowest"
					+ " and highest of the rounds)%n", database, CALLS, CONNECTIONS, rounds, WARM_UP_ROUNDS);
			System.out.printf("  each call a key of its own (executed), against the two statements by hand on the same threads:%n");
			for (String shape : shapes.keySet()) {
				System.out.printf("    %-30s %,7.0f calls/s (floor %,7.0f/s): %s of the floor's%n", shape,
						Medians.of(perSecond.get(shape)), Medians.of(perSecond.get(shape + ", floor")),
						spread(perSecond.get(shape + ", of the floor")));
			}
			System.out.printf("    virtual threads against 1,000 platform threads: %s%n",
					spread(perSecond.get("virtual over platform")));
			System.out.printf("  ten callers per key, %d keys (one executes, the others wait for it or are told it runs):%n",
					KEYS);
			for (String shape : List.of(VIRTUAL, PLATFORM)) {
				System.out.printf("    %-30s %,7.0f calls/s%n", shape, Medians.of(perSecond.get(shape + ", shared keys")));
			}
			System.out.printf("    virtual threads against 1,000 platform threads: %s%n",
					spread(perSecond.get("virtual over platform, shared keys")));
			System.out.printf("  executions: %,d for %,d keys (%,d of them shared by ten callers); shared keys not executed"
					+ " exactly once: %d%n", executed, keys, (WARM_UP_ROUNDS + rounds) * 2 * KEYS, sharedNotOnce[0]);
			System.out.printf("  carriers pinned by the calls on virtual threads (jdk.VirtualThreadPinned, counted rounds): %d%n",
					pinned);
		}
	}

	private static void add(Map<String, List<Double>> figures, String name, double value) {
		figures.computeIfAbsent(name, (n) -> new ArrayList<>()).add(value);
	}

	private static double last(Map<String, List<Double>> figures, String name) {
		List<Double> values = figures.get(name);
		return values.get(values.size() - 1);
	}

	private static String spread(List<Double> values) {
		return String.format("%.2f (%.2f-%.2f)", Medians.of(values), min(values), max(values));
	}

	/**
	 * A thousand callers of a hundred keys, ten per key, at once, each key a run of its own: each key must execute
	 * once. A caller that finds its key's call still running is told so: that is its answer.
	 */
	private static Measured sharedKeys(Agent agent, JdbcTemplate ledger, Threads threads, int[] wrongExecutions)
			throws Exception {
		String runPrefix = "shared-" + UUID.randomUUID() + "-";
		long before = agent.executions();
		AtomicLong call = new AtomicLong();
		Measured measured = threads.run(() -> {
			String run = runPrefix + (call.getAndIncrement() % KEYS);
			try {
				return agent.inRun(run);
			}
			catch (ToolCallInProgressException ex) {
				return ex;
			}
		});
		// As many executions as keys, and every key's call succeeded (which it can only by executing): each key
		// executed exactly once.
		Integer succeeded = ledger.queryForObject("SELECT COUNT(*) FROM " + BenchmarkDatabase.TABLE
				+ " WHERE run_id LIKE ? AND status = 'succeeded'", Integer.class, runPrefix + "%");
		if (agent.executions() - before != KEYS || succeeded == null || succeeded != KEYS) {
			wrongExecutions[0]++;
		}
		return measured;
	}

	/** How fast {@code CALLS} calls released together were answered, and the carriers they pinned. */
	record Measured(double perSecond, long pinned) {
	}

	/** The threads a round's calls run on: a virtual thread per call, or a pool of platform threads. */
	record Threads(boolean virtual, ExecutorService platform) {

		static Threads oneVirtualPerCall() {
			return new Threads(true, null);
		}

		static Threads pooled(ExecutorService threads) {
			return new Threads(false, threads);
		}

		/** {@code CALLS} calls, each on a thread of these, released together once every one is on its thread. */
		Measured run(Callable<Object> call) throws Exception {
			Recording recording = null;
			if (this.virtual) {
				recording = new Recording();
				recording.enable(PINNED).withThreshold(Duration.ZERO);
				recording.start();
			}
			ExecutorService executor = this.virtual ? virtualThreadPerCall() : this.platform;
			try {
				CountDownLatch ready = new CountDownLatch(CALLS);
				CountDownLatch start = new CountDownLatch(1);
				List<Future<Object>> answers = new ArrayList<>(CALLS);
				for (int i = 0; i < CALLS; i++) {
					answers.add(executor.submit(() -> {
						ready.countDown();
						start.await();
						return call.call();
					}));
				}
				// A pool smaller than CALLS starts the rest as its threads come free: released at once.
				if (!this.virtual && this.platform instanceof ThreadPoolExecutor pool
						&& pool.getMaximumPoolSize() < CALLS) {
					start.countDown();
				}
				else {
					ready.await();
				}
				long began = System.nanoTime();
				start.countDown();
				for (Future<Object> answer : answers) {
					answer.get();
				}
				long took = System.nanoTime() - began;
				return new Measured(CALLS / (took / 1e9), (recording != null) ? pinned(recording) : 0);
			}
			finally {
				if (this.virtual) {
					executor.shutdown();
				}
				if (recording != null) {
					recording.close();
				}
			}
		}

		private static long pinned(Recording recording) throws Exception {
			recording.stop();
			Path file = Files.createTempFile("virtual-threads", ".jfr");
			try {
				recording.dump(file);
				return RecordingFile.readAllEvents(file)
					.stream()
					.filter((event) -> event.getEventType().getName().equals(PINNED))
					.count();
			}
			finally {
				Files.deleteIfExists(file);
			}
		}

	}

	/** Platform threads, all started before the first round. */
	private static ExecutorService prestarted(int threads) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		List<Future<?>> started = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			started.add(executor.submit(() -> null));
		}
		for (Future<?> thread : started) {
			thread.get();
		}
		return executor;
	}

	// The benchmarks compile for Java 17: the Java 21 API is reached by reflection.
	private static ExecutorService virtualThreadPerCall() throws Exception {
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

	private static double min(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
	}

	private static double max(List<Double> values) {
		return values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
	}

}
