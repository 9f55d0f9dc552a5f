package io.idempotency.benchmarks;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.OutcomeWriteBehind;
import io.idempotency.testsupport.TestDatabase;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One tool call end to end (proxy, advice, key, ledger) next to its floor, measured in the same run: the
 * fewest statements that do what the path does, sent by hand on plain JDBC through the same pool.
 * <ul>
 * <li>{@code executed} against {@code floorExecuted}: the claim's insert and the outcome's update;</li>
 * <li>{@code executedInTransaction} against {@code floorExecutedInOneTransaction}: both in one
 * transaction;</li>
 * <li>{@code executedWriteBehind}, a ledger writing outcomes behind their callers (in batches, each due once
 * its oldest outcome has waited 5 ms), against {@code floorOneStatement}, the claim's insert alone (its latency), and against
 * {@code floorExecuted} (its throughput);</li>
 * <li>{@code replay} against {@code floorReplay}: one read of the row by its key. With
 * {@code replayCache=true}, {@code replay} is answered from memory and the floor shows what it saves.</li>
 * </ul>
 * Read the medians as ratios to their floor; run with {@code -t 8} or {@code -t 32} and {@code -bm thrpt}
 * for throughput under concurrency (distinct keys per call), with a warm-up of a minute ({@code -wi 20
 * -w 3}): under many threads on two cores the JIT compiles the library's path for most of that minute,
 * and a shorter warm-up measures the compiler. {@link Rounds} runs the pairs in interleaved rounds. The
 * database is found as the tests find theirs ({@code IDEMPOTENCY_TEST_POSTGRES_URL} and so on).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 6, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class CallBenchmark {

	static final String ARGUMENTS = "{\"account\":\"Henderson Industrial\",\"quantity\":200}";

	static final String RESULT = "{\"account\":\"Henderson Industrial\",\"quantity\":200}";

	@Param({ "POSTGRESQL" })
	public TestDatabase database;

	@Param({ "false" })
	public boolean replayCache;

	private BenchmarkDatabase db;

	private Floors floors;

	private Agent agent;

	/** Writes outcomes behind its callers, as the starter does with write-behind enabled. */
	private Agent writingBehind;

	private String replayedKey;

	private ClaimRequest replayRequest;

	@Setup(Level.Trial)
	public void setUp() throws SQLException {
		this.db = new BenchmarkDatabase(this.database);
		this.agent = new Agent(this.db.dataSource(), this.replayCache);
		this.writingBehind = new Agent(this.db.dataSource(), this.replayCache,
				new OutcomeWriteBehind(1000, 100, Duration.ofMillis(5)));
		String run = "ledger-replay";
		this.replayRequest = new ClaimRequest(IdempotencyKeys.derive("note", ARGUMENTS, run), run, Agent.USER, "note",
				ARGUMENTS);
		this.agent.ledger().recordSucceeded((Claim.Won) this.agent.ledger().claim(this.replayRequest), RESULT);
		this.replayedKey = this.db.nextKey();
		this.floors = this.db.floors();
		this.floors.executed(this.replayedKey, ARGUMENTS, RESULT);
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.agent.close();
		this.writingBehind.close();
		this.db.close();
	}

	@Benchmark
	public int floorExecuted() throws SQLException {
		return this.floors.executed(this.db.nextKey(), ARGUMENTS, RESULT);
	}

	@Benchmark
	public Object executed() {
		return this.agent.executed();
	}

	@Benchmark
	public int floorOneStatement() throws SQLException {
		return this.floors.oneStatement(this.db.nextKey(), ARGUMENTS);
	}

	@Benchmark
	public Object executedWriteBehind() {
		return this.writingBehind.executed();
	}

	@Benchmark
	public int floorExecutedInOneTransaction() throws SQLException {
		return this.floors.executedInOneTransaction(this.db.nextKey(), ARGUMENTS, RESULT);
	}

	@Benchmark
	public Object executedInTransaction() {
		return this.agent.executedInTransaction();
	}

	@Benchmark
	public String floorReplay() throws SQLException {
		return this.floors.replay(this.replayedKey);
	}

	@Benchmark
	public String replayByTheClaimStatementByHand() throws SQLException {
		if (this.database != TestDatabase.POSTGRESQL) {
			return this.floors.replay(this.replayedKey);
		}
		return this.floors.replayByTheClaimStatement(this.replayedKey, ARGUMENTS);
	}

	@Benchmark
	public Object replayByTheLedgerAlone() {
		return this.agent.ledger().claim(this.replayRequest);
	}

	@Benchmark
	public Object replay() {
		return this.agent.replay();
	}

}
