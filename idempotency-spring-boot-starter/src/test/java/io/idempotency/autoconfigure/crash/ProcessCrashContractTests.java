package io.idempotency.autoconfigure.crash;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.autoconfigure.crash.CrashingApplication.CrashTools;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.DatabaseFacts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Real processes killed with SIGKILL in the middle of a call: an instance of {@link CrashingApplication}
 * (the starter, on this database) makes one call and is killed at a point of it, chosen in turn: before
 * the claim, after it, during the effect, after the effect, before the outcome, after it, or before a
 * statement chosen at random. Then another instance repeats the call and its reconciler runs.
 *
 * <p>After every kill: never two effects for one key; every row ends settled, succeeded exactly when the
 * effect happened; a repeat after that never executes again. {@code ./mvnw verify} runs
 * {@value #SHORT_TRIALS} kills per database; {@code -Preliability} runs {@value #LONG_TRIALS}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProcessCrashContractTests {

	private static final Logger logger = LoggerFactory.getLogger(ProcessCrashContractTests.class);

	static final int SHORT_TRIALS = 14;

	static final int LONG_TRIALS = 200;

	private static final String TABLE = "tool_audit_crash_test";

	private static final String USER = "crash-user";

	private static final List<String> POINTS = List.of("BEFORE_CLAIM", "AFTER_CLAIM", "DURING_EFFECT", "AFTER_EFFECT",
			"BEFORE_OUTCOME", "AFTER_OUTCOME", "STEP");

	private ConfigurableApplicationContext survivor;

	private JdbcTemplate jdbc;

	abstract DataSource dataSource();

	/** What the tests need to know of the database this suite runs on. */
	abstract DatabaseFacts facts();

	@BeforeAll
	void start() {
		DataSource dataSource = dataSource();
		this.jdbc = new JdbcTemplate(dataSource);
		LedgerSchema.drop(dataSource, TABLE);
		this.jdbc.execute("DROP TABLE IF EXISTS " + CrashingApplication.EFFECTS);
		this.jdbc.execute("CREATE TABLE " + CrashingApplication.EFFECTS + " (id " + facts().identityColumn()
				+ ", reference VARCHAR(40) NOT NULL, item VARCHAR(40) NOT NULL)");
		// The instance that repeats each call after a kill and runs the reconciler: stale after a second
		// (the killed instance's heartbeats have stopped), and reconciled when the test says.
		this.survivor = CrashingApplication.start(arguments("--idempotency.reconciler.stale-after=1s",
				"--idempotency.heartbeat.interval=500ms", "--idempotency.reconciler.interval=1h").toArray(String[]::new));
	}

	@AfterAll
	void stop() {
		if (this.survivor != null) {
			this.survivor.close();
		}
	}

	private List<String> arguments(String... more) {
		HikariDataSource pool = unwrapPool();
		List<String> arguments = new ArrayList<>(List.of("--spring.datasource.url=" + pool.getJdbcUrl(),
				"--spring.datasource.hikari.maximum-pool-size=4", "--idempotency.jdbc.table-name=" + TABLE,
				"--idempotency.jdbc.initialize-schema=always"));
		if (pool.getUsername() != null) {
			arguments.add("--spring.datasource.username=" + pool.getUsername());
		}
		if (pool.getPassword() != null) {
			arguments.add("--spring.datasource.password=" + pool.getPassword());
		}
		arguments.addAll(List.of(more));
		return arguments;
	}

	private HikariDataSource unwrapPool() {
		try {
			return dataSource().unwrap(HikariDataSource.class);
		}
		catch (java.sql.SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static int trials() {
		return "long".equals(System.getProperty("idempotency.reliability")) ? LONG_TRIALS : SHORT_TRIALS;
	}

	@Test
	void aProcessKilledAnywhereInACallNeverLeadsToASecondEffectAndItsCallEndsSettled() throws Exception {
		killTrials("crash");
	}

	/**
	 * As above, on instances that write outcomes behind their callers and wait an hour to fill a batch: a call
	 * not stopped before it returned was answered, and its outcome still waited in memory when the process was
	 * killed. The row stays attempting, its heartbeats stop, and the survivor's reconciler settles it.
	 */
	@Test
	void aProcessKilledWithOutcomesWaitingToBeWrittenNeverLeadsToASecondEffectAndItsCallEndsSettled() throws Exception {
		killTrials("write-behind", "--idempotency.outcome-write-behind.enabled=true",
				"--idempotency.outcome-write-behind.delay=1h");
	}

	private void killTrials(String name, String... instanceArguments) throws Exception {
		long seed = Long.getLong("idempotency.test.seed", System.nanoTime());
		Random random = new Random(seed);
		int trials = trials();
		Map<String, Integer> killedAt = new TreeMap<>();
		Map<String, Integer> endings = new TreeMap<>();
		Instance next = Instance.start(arguments(instanceArguments));
		for (int trial = 0; trial < trials; trial++) {
			Instance victim = next;
			next = (trial + 1 < trials) ? Instance.start(arguments(instanceArguments)) : null;
			String point = POINTS.get(trial % POINTS.size());
			if (point.equals("STEP")) {
				point = "STEP-" + (1 + random.nextInt(3));
			}
			String tool = ((trial / POINTS.size()) % 2 == 0) ? "book_slot" : "book_slot_in_transaction";
			String run = name + "-" + seed + "-" + trial;
			String reached = victim.callAndKill(tool, run, "slot-" + trial, point);
			killedAt.merge(tool + " " + (reached.startsWith("AT ") ? point.replaceAll("-\\d+", "-n") : "after the call"),
					1, Integer::sum);
			String ending = settleAfterTheKill(tool, run, "slot-" + trial, "seed " + seed + ", trial " + trial + ", " + point);
			endings.merge(ending, 1, Integer::sum);
		}
		logger.info("crash.trials database={} instances={} trials={} seed={} killed_at={} endings={} duplicate_effects=0"
				+ " unresolved_rows=0", getClass().getSimpleName(), name, trials, seed, killedAt, endings);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE status NOT IN ('succeeded', 'failed')",
				Integer.class)).as("unsettled rows").isZero();
		if (instanceArguments.length > 0) {
			// The window write-behind opens: answered, outcome in memory, then killed.
			assertThat(killedAt).as("calls killed after they were answered").containsKey("book_slot after the call");
		}
	}

	@Test
	void aLongCallIsLeftAloneWhileItsInstanceBeatsAndReconciledOnceAfterItDies() throws Exception {
		Instance instance = Instance.start(arguments("--idempotency.heartbeat.interval=200ms",
				"--idempotency.reconciler.stale-after=1s", "--idempotency.reconciler.enabled=false"));
		String run = "long-" + System.nanoTime();
		IdempotencyKey key = IdempotencyKeys.derive("book_slot", "{\"item\":\"long\"}", run);
		JdbcLedger ledger = this.survivor.getBean(JdbcLedger.class);
		Reconciler reconciler = this.survivor.getBean(Reconciler.class);
		long resolvedBefore = reconciler.reconciledSucceeded() + reconciler.reconciledFailed();
		// The call stops in its effect and stays there, while its instance goes on beating.
		assertThat(instance.call("book_slot", run, "long", "DURING_EFFECT")).isEqualTo("AT DURING_EFFECT");
		try {
			// Three times the survivor's stale-after, by the database clock, with its reconciler passing all along.
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				reconciler.reconcile();
				return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE idempotency_key = ? AND "
						+ secondsAgo("started_at", 3), Integer.class, key.value()) == 1;
			});
			LedgerEntry running = ledger.find(key).orElseThrow();
			assertThat(running.status()).isEqualTo(LedgerStatus.ATTEMPTING);
			assertThat(running.reconcileAttempts()).as("never taken while its instance lives").isZero();
		}
		finally {
			instance.kill();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			reconciler.reconcile();
			return !ledger.find(key).orElseThrow().status().isUnsettled();
		});
		for (int pass = 0; pass < 3; pass++) {
			reconciler.reconcile();
		}
		LedgerEntry settled = ledger.find(key).orElseThrow();
		assertThat(settled.status()).as("its effect was never committed").isEqualTo(LedgerStatus.FAILED);
		assertThat(settled.reconcileAttempts()).isEqualTo(1);
		assertThat(reconciler.reconciledSucceeded() + reconciler.reconciledFailed() - resolvedBefore).isEqualTo(1);
		assertThat(effects(key.externalReference("s"))).isZero();
	}

	/** A condition that a time column lies more than the given seconds behind the database clock. */
	String secondsAgo(String column, int seconds) {
		return column + " < CURRENT_TIMESTAMP - INTERVAL '" + seconds + " seconds'";
	}

	/**
	 * Repeats the call on the surviving instance, reconciles until its row is settled, and repeats it again;
	 * returns how the call ended.
	 */
	private String settleAfterTheKill(String tool, String run, String item, String trial) {
		IdempotencyKey key = IdempotencyKeys.derive(tool, "{\"item\":\"" + item + "\"}", run);
		String reference = key.externalReference("s");
		JdbcLedger ledger = this.survivor.getBean(JdbcLedger.class);
		CrashTools tools = this.survivor.getBean(CrashTools.class);
		int effectsAtTheKill = effects(reference);
		assertThat(effectsAtTheKill).as("effects at the kill, %s", trial).isLessThanOrEqualTo(1);
		if (tool.equals("book_slot_in_transaction")) {
			// Claim, effect and outcome commit together or not at all.
			List<LedgerEntry> row = ledger.find(key).stream().toList();
			assertThat(effectsAtTheKill).as("%s", trial).isEqualTo(row.isEmpty() ? 0 : 1);
			row.forEach((entry) -> assertThat(entry.status()).as("%s", trial).isEqualTo(LedgerStatus.SUCCEEDED));
		}
		String repeat = repeat(tools, tool, run, item);
		Reconciler reconciler = this.survivor.getBean(Reconciler.class);
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			reconciler.reconcile();
			return !ledger.find(key).orElseThrow().status().isUnsettled();
		});
		int effects = effects(reference);
		LedgerEntry row = ledger.find(key).orElseThrow();
		assertThat(effects).as("effects, %s", trial).isLessThanOrEqualTo(1);
		assertThat(row.status()).as("the row, %s", trial)
			.isEqualTo((effects == 1) ? LedgerStatus.SUCCEEDED : LedgerStatus.FAILED);
		if (effectsAtTheKill == 1) {
			assertThat(repeat).as("the repeat of a call whose effect happened, %s", trial).isNotEqualTo("executed");
		}
		String last = repeat(tools, tool, run, item);
		assertThat(last).as("the last repeat, %s", trial).isEqualTo((effects == 1) ? "replayed" : "previous attempt failed");
		assertThat(effects(reference)).as("%s", trial).isEqualTo(effects);
		return "repeat " + repeat + ", then " + row.status().name().toLowerCase(java.util.Locale.ROOT);
	}

	/** How a repeat on the surviving instance was answered. */
	private String repeat(CrashTools tools, String tool, String run, String item) {
		String reference = IdempotencyKeys.derive(tool, "{\"item\":\"" + item + "\"}", run).externalReference("s");
		int before = effects(reference);
		try {
			String result = RunContext.supply(new Run(run, USER), () -> CrashTools.call(tools, tool, item));
			assertThat(result).isEqualTo(reference);
			return (effects(reference) > before) ? "executed" : "replayed";
		}
		catch (ToolCallInProgressException ex) {
			return "in progress";
		}
		catch (PreviousAttemptFailedException ex) {
			return "previous attempt failed";
		}
	}

	private int effects(String reference) {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM " + CrashingApplication.EFFECTS + " WHERE reference = ?",
				Integer.class, reference);
	}

	/** An instance of {@link CrashingApplication} in a process of its own. */
	static final class Instance {

		private final Process process;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		private Instance(Process process) {
			this.process = process;
			Thread reader = new Thread(() -> {
				try (BufferedReader output = new BufferedReader(
						new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
					String line;
					while ((line = output.readLine()) != null) {
						if (line.startsWith(CrashingApplication.PROTOCOL)) {
							this.lines.add(line.substring(CrashingApplication.PROTOCOL.length()));
						}
					}
				}
				catch (IOException ex) {
					// the process is gone
				}
				this.lines.add("EXITED");
			}, "crash-instance-output");
			reader.setDaemon(true);
			reader.start();
		}

		static Instance start(List<String> arguments) {
			List<String> command = new ArrayList<>(List.of(
					Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1",
					"-XX:+UseSerialGC", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
					CrashingApplication.class.getName()));
			command.addAll(arguments);
			try {
				return new Instance(new ProcessBuilder(command)
					.redirectError(ProcessBuilder.Redirect.appendTo(new File("target/crash-instances.log")))
					.start());
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not start an instance: " + command, ex);
			}
		}

		/** Makes the call, stops it at the point, kills the process; returns the last line it printed. */
		String callAndKill(String tool, String run, String item, String point) throws Exception {
			try {
				return call(tool, run, item, point);
			}
			finally {
				kill();
			}
		}

		/** Makes the call and returns where it stopped: {@code AT <point>}, or how it ended. */
		String call(String tool, String run, String item, String point) throws Exception {
			assertThat(next()).as("the instance started").isEqualTo("READY");
			Writer input = new java.io.OutputStreamWriter(this.process.getOutputStream(), StandardCharsets.UTF_8);
			input.write("CALL " + tool + " " + run + " " + item + " " + point + "\n");
			input.flush();
			String reached = next();
			assertThat(reached).as("where the instance stopped").matches("(AT|DONE|FAILED) .*");
			return reached;
		}

		/** SIGKILL: no shutdown hook, no finally block, no flush runs in the instance. */
		void kill() throws InterruptedException {
			this.process.destroyForcibly();
			assertThat(this.process.waitFor(30, TimeUnit.SECONDS)).as("the instance died").isTrue();
		}

		private String next() throws InterruptedException {
			String line = this.lines.poll(120, TimeUnit.SECONDS);
			assertThat(line).as("a line from the instance (its log: target/crash-instances.log)").isNotNull();
			return line;
		}

	}

}
