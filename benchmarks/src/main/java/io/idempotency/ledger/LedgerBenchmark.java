package io.idempotency.ledger;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
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

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The ledger alone, without the proxy, on a real database, as ratios to a floor measured in the same run:
 * one round trip ({@code SELECT 1}) through the same pool. A won claim costs one round trip, an executed
 * call (claim and outcome) two, and a replay one on PostgreSQL (two elsewhere), with no durable commit of
 * its own: replay counts are written in batches. {@code -p database=MARIADB} or {@code H2} for the others.
 *
 * <p>The database is found as the tests find theirs ({@code IDEMPOTENCY_TEST_POSTGRES_URL} and so on).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class LedgerBenchmark {

	private static final String TABLE = "ledger_benchmark";

	private static final String ARGUMENTS = "{\"accountName\":\"Henderson Industrial\",\"sku\":\"SKU-4411\",\"quantity\":200}";

	@Param({ "POSTGRESQL" })
	public TestDatabase database;

	private DataSource dataSource;

	private JdbcTemplate jdbc;

	private JdbcLedger ledger;

	private ClaimRequest replayed;

	private final AtomicLong runs = new AtomicLong();

	@Setup(Level.Trial)
	public void setUp() {
		this.dataSource = TestDatabases.dataSource(this.database);
		LedgerSchema.drop(this.dataSource, TABLE);
		LedgerSchema.create(this.dataSource, TABLE);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.ledger = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults());
		this.replayed = request("replayed-run");
		this.ledger.recordSucceeded((Claim.Won) this.ledger.claim(this.replayed), "{\"quoteId\":\"Q-1\"}");
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.ledger.close();
		LedgerSchema.drop(this.dataSource, TABLE);
	}

	private static ClaimRequest request(String runId) {
		return new ClaimRequest(IdempotencyKeys.derive("draft_quote", ARGUMENTS, runId), runId, "user-1",
				"draft_quote", ARGUMENTS);
	}

	@Benchmark
	public Integer floorOneRoundTrip() {
		return this.jdbc.queryForObject("SELECT 1", Integer.class);
	}

	@Benchmark
	public Claim claimWon() {
		return this.ledger.claim(request("run-" + this.runs.incrementAndGet()));
	}

	@Benchmark
	public boolean claimAndRecordSucceeded() {
		ClaimRequest request = request("run-" + this.runs.incrementAndGet());
		return this.ledger.recordSucceeded((Claim.Won) this.ledger.claim(request), "{\"quoteId\":\"Q-2\"}");
	}

	@Benchmark
	public Claim claimReplayed() {
		return this.ledger.claim(this.replayed);
	}

}
