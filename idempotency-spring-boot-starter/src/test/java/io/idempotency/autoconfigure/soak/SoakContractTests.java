package io.idempotency.autoconfigure.soak;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.LedgerUnavailableException;
import io.idempotency.ToolResult;
import io.idempotency.autoconfigure.soak.SoakApplication.SoakTools;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.ReplayStatistics;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.DatabaseFacts;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of an application on one database, each with 16 threads making a mix of repeated and
 * distinct calls, transactional and not (one in ten loses its answer after the effect and is reconciled),
 * on keys shared across the instances, while both reconcilers and both retention jobs run (retention
 * deleting old rows all along). For {@value #SHORT_SECONDS} seconds in {@code ./mvnw verify}, for
 * {@value #LONG_SECONDS} with {@code -Preliability}.
 *
 * <p>Afterwards: one effect per distinct key, exactly; no caller saw a database error (no deadlock, no lock
 * timeout); every row settled; the replays the ledger reports are the replays the callers were given.
 */
abstract class SoakContractTests {

	/** The soak's figures are a result of the build: this logger shows in its output (logback-test.xml). */
	private static final Logger results = LoggerFactory.getLogger("io.idempotency.results");

	static final int SHORT_SECONDS = 5;

	static final int LONG_SECONDS = 120;

	private static final String TABLE = "tool_audit_soak_test";

	private static final int THREADS_PER_INSTANCE = 16;

	private static final int OLD_ROWS = 3000;

	/** How often a worker makes a call the library refused, closed, before it counts as an error. */
	private static final int REFUSED_CALL_ATTEMPTS = 10;

	private record Call(String tool, String run, String item) {
	}

	abstract DataSource database();

	/** What the tests need to know of the database this suite runs on. */
	abstract DatabaseFacts facts();

	/** Inserts old settled calls, for retention to delete while the instances work. */
	abstract void insertOldRows(JdbcTemplate jdbc, String table, int rows);

	@Test
	void twoInstancesUnderLoadExecuteEachKeyOnceAndReportEveryReplay() throws Exception {
		DataSource database = database();
		JdbcTemplate jdbc = new JdbcTemplate(database);
		LedgerSchema.drop(database, TABLE);
		LedgerSchema.create(database, TABLE);
		jdbc.execute("DROP TABLE IF EXISTS " + SoakApplication.EFFECTS);
		jdbc.execute("CREATE TABLE " + SoakApplication.EFFECTS + " (id " + facts().identityColumn()
				+ ", reference VARCHAR(40) NOT NULL)");
		insertOldRows(jdbc, TABLE, OLD_ROWS);
		boolean longForm = "long".equals(System.getProperty("idempotency.reliability"));
		Duration soak = Duration.ofSeconds(longForm ? LONG_SECONDS : SHORT_SECONDS);

		List<Call> made = new CopyOnWriteArrayList<>();
		Set<Call> distinct = ConcurrentHashMap.newKeySet();
		Map<String, AtomicLong> answers = new ConcurrentHashMap<>();
		List<Throwable> unexpected = new CopyOnWriteArrayList<>();
		AtomicLong refusals = new AtomicLong();
		try (ConfigurableApplicationContext first = start(database); ConfigurableApplicationContext second = start(database)) {
			List<SoakTools> instances = List.of(first.getBean(SoakTools.class), second.getBean(SoakTools.class));
			ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS_PER_INSTANCE);
			long deadline = System.nanoTime() + soak.toNanos();
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < 2 * THREADS_PER_INSTANCE; t++) {
				SoakTools tools = instances.get(t % 2);
				String thread = "t" + t;
				workers.add(threads.submit(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int n = 0; System.nanoTime() < deadline; n++) {
						Call call;
						if (!made.isEmpty() && random.nextBoolean()) {
							call = made.get(random.nextInt(made.size()));
						}
						else {
							String tool = random.nextInt(3) == 0 ? "reserve_in_transaction" : "reserve";
							String item = (tool.equals("reserve") && random.nextInt(10) == 0 ? SoakApplication.LOST_ANSWER : "item-")
									+ thread + "-" + n;
							call = new Call(tool, "run-" + thread + "-" + (n / 4), item);
							distinct.add(call);
							made.add(call);
						}
						for (int attempt = 1;; attempt++) {
							try {
								ToolResult<String> answer = RunContext.supply(new Run(call.run(), "user"),
										() -> call.tool().equals("reserve") ? tools.reserve(call.item())
												: tools.reserveInTransaction(call.item()));
								answers.computeIfAbsent(answer.kind().name(), (k) -> new AtomicLong()).incrementAndGet();
							}
							catch (LedgerUnavailableException refused) {
								// Refused, closed: nothing ran, and the caller may try again, as an agent would.
								refusals.incrementAndGet();
								if (attempt < REFUSED_CALL_ATTEMPTS) {
									continue;
								}
								unexpected.add(refused);
							}
							catch (UncheckedIOException lostAnswer) {
								answers.computeIfAbsent("LOST_ANSWER", (k) -> new AtomicLong()).incrementAndGet();
							}
							catch (RuntimeException ex) {
								unexpected.add(ex);
							}
							break;
						}
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get();
			}
			threads.shutdown();

			// Both reconcilers settle the calls whose answer was lost; retention deletes the old rows.
			await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE
					+ " WHERE status IN ('attempting', 'unknown')", Integer.class) == 0
					&& jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE run_id = 'old'", Integer.class) == 0);
			first.getBean(JdbcLedger.class).flushReplayCounts();
			second.getBean(JdbcLedger.class).flushReplayCounts();

			assertThat(unexpected).as(() -> "errors callers saw, with their causes: " + causes(unexpected)).isEmpty();
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + SoakApplication.EFFECTS, Long.class))
				.as("effects").isEqualTo(distinct.size());
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM (SELECT reference FROM " + SoakApplication.EFFECTS
					+ " GROUP BY reference HAVING COUNT(*) > 1) AS twice", Long.class)).as("keys with two effects").isZero();
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status <> 'succeeded'", Long.class))
				.as("rows not succeeded").isZero();
			long replaysGiven = count(answers, "REPLAYED") + count(answers, "IN_PROGRESS")
					+ count(answers, "PREVIOUS_ATTEMPT_FAILED");
			// A scheduled flush may hold drained counts in a write not yet committed (or put back after a failed
			// one): the counts are reported once every flush has landed.
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				first.getBean(JdbcLedger.class).flushReplayCounts();
				second.getBean(JdbcLedger.class).flushReplayCounts();
				assertThat(first.getBean(JdbcLedger.class).replayStatistics(Duration.ofHours(1)).replays())
					.as("replays the ledger reports").isEqualTo(replaysGiven);
			});
			ReplayStatistics reported = first.getBean(JdbcLedger.class).replayStatistics(Duration.ofHours(1));
			assertThat(reported.executions()).as("executions the ledger reports").isEqualTo(distinct.size());
			results.info("soak.result database={} seconds={} instances=2 threads={} calls={} distinct_keys={} effects={} answers={}"
					+ " replays_reported={} refusals_tried_again={} unexpected_errors=0 duplicate_effects=0 unsettled_rows=0"
					+ " old_rows_purged={}",
					getClass().getSimpleName(), soak.toSeconds(), 2 * THREADS_PER_INSTANCE, new TreeMap<>(answers).values().stream()
						.mapToLong(AtomicLong::get).sum(), distinct.size(), distinct.size(), new TreeMap<>(answers),
					reported.replays(), refusals.get(), OLD_ROWS);
		}
	}

	private static long count(Map<String, AtomicLong> answers, String kind) {
		AtomicLong count = answers.get(kind);
		return (count != null) ? count.get() : 0;
	}

	private static ConfigurableApplicationContext start(DataSource database) throws Exception {
		HikariDataSource pool = database.unwrap(HikariDataSource.class);
		List<String> arguments = new ArrayList<>(List.of("--spring.datasource.url=" + pool.getJdbcUrl(),
				"--spring.datasource.hikari.maximum-pool-size=20", "--idempotency.jdbc.table-name=" + TABLE,
				"--idempotency.jdbc.initialize-schema=never", "--idempotency.reconciler.interval=50ms",
				"--idempotency.reconciler.stale-after=1s", "--idempotency.heartbeat.interval=200ms",
				"--idempotency.retention.period=1d", "--idempotency.retention.interval=100ms",
				"--idempotency.retention.batch-size=50", "--idempotency.replay-counts.flush-interval=100ms"));
		if (pool.getUsername() != null) {
			arguments.add("--spring.datasource.username=" + pool.getUsername());
		}
		if (pool.getPassword() != null) {
			arguments.add("--spring.datasource.password=" + pool.getPassword());
		}
		return new SpringApplicationBuilder(SoakApplication.class).web(WebApplicationType.NONE)
			.bannerMode(org.springframework.boot.Banner.Mode.OFF)
			.logStartupInfo(false)
			.run(arguments.toArray(String[]::new));
	}

	private static String causes(List<Throwable> errors) {
		StringBuilder causes = new StringBuilder();
		for (Throwable error : errors) {
			causes.append("\n  ").append(error);
			for (Throwable cause = error.getCause(); cause != null; cause = cause.getCause()) {
				causes.append("\n    caused by ").append(cause);
			}
		}
		return causes.toString();
	}

}
