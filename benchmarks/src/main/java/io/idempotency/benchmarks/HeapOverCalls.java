package io.idempotency.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.testsupport.TestDatabase;

/**
 * The heap over a million calls through the proxy, as an agent makes them: 16 threads, one call in four
 * executed in a run of its own, the others repeats of a call made earlier (answered from the replay cache
 * while it holds them, from the table after). After every 100,000 calls the heap in use is read after a
 * full collection; a library that keeps something per call shows it as a rising line. The replay cache
 * and the replay counts are bounded, so the line must level off once they are full.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.HeapOverCalls [DATABASE]}
 */
public final class HeapOverCalls {

	private static final int CALLS = 1_000_000;

	private static final int STEP = 100_000;

	private static final int THREADS = 16;

	private HeapOverCalls() {
	}

	public static void main(String[] args) throws Exception {
		TestDatabase database = (args.length > 0) ? TestDatabase.valueOf(args[0]) : TestDatabase.POSTGRESQL;
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		try (BenchmarkDatabase db = new BenchmarkDatabase(database); Agent agent = new Agent(db.dataSource(), true)) {
			AtomicLong made = new AtomicLong();
			List<Long> heap = new ArrayList<>();
			heap.add(heapAfterCollection(memory));
			System.out.printf("%s: %,d calls, %d threads, one in four executed%n", database, CALLS, THREADS);
			System.out.printf("  %,9d calls: %6.1f MB in use%n", 0, heap.get(0) / 1e6);
			ExecutorService pool = Executors.newFixedThreadPool(THREADS);
			try {
				for (int step = STEP; step <= CALLS; step += STEP) {
					List<Future<?>> callers = new ArrayList<>();
					for (int thread = 0; thread < THREADS; thread++) {
						int own = thread;
						callers.add(pool.submit(() -> {
							for (int call = own; call < STEP; call += THREADS) {
								long n = made.incrementAndGet();
								if (n % 4 == 0) {
									agent.executed();
								}
								else {
									// A repeat of a call made a while ago in one of a thousand runs.
									agent.inRun("repeated-" + (n % 1000));
								}
							}
							return null;
						}));
					}
					for (Future<?> caller : callers) {
						caller.get();
					}
					heap.add(heapAfterCollection(memory));
					System.out.printf("  %,9d calls: %6.1f MB in use%n", step, heap.get(heap.size() - 1) / 1e6);
				}
			}
			finally {
				pool.shutdownNow();
			}
			long second = heap.get(2);
			long last = heap.get(heap.size() - 1);
			System.out.printf("  executions: %,d; heap at the end %.2fx the heap after 200,000 calls%n",
					agent.executions(), (double) last / second);
		}
		// An embedded database server, started where no server is configured, keeps the JVM alive otherwise.
		System.exit(0);
	}

	private static long heapAfterCollection(MemoryMXBean memory) {
		System.gc();
		System.gc();
		return memory.getHeapMemoryUsage().getUsed();
	}

}
