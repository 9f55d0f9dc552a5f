package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How the database plans the ledger's writes of a claimed row when its statistics are stale: a table of
 * settled rows is filled and analysed, its automatic statistics turned off, and unsettled rows are added
 * after that (0, 10,000 and 100,000 by default, one in every 25 rows written, as a burst of timeouts among
 * ordinary calls leaves them). At each count one more call is claimed through the ledger, and each of its
 * row's writes, as {@link LedgerStatements} writes them, is run under {@code EXPLAIN (ANALYZE, BUFFERS)} on
 * PostgreSQL (as a custom and as a generic plan) or {@code ANALYZE FORMAT=JSON} on MariaDB, and rolled
 * back. It prints the index each write reads, the pages it touched and its time.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.ledger.OutcomePlans [POSTGRESQL|MARIADB]
 * [SETTLED_ROWS] [UNSETTLED_ROWS...]}, with the databases the tests find. Not a timed test: a measurement.
 */
public final class OutcomePlans {

	private static final String TABLE = "tool_audit_outcome_plans";

	/** One unsettled row in this many rows written after the statistics were taken. */
	private static final int SPREAD = 25;

	private static final Pattern INDEX = Pattern.compile("\"Index Name\": \"([^\"]+)\"");

	private static final Pattern HIT = Pattern.compile("\"Shared Hit Blocks\": (\\d+)");

	private static final Pattern READ = Pattern.compile("\"Shared Read Blocks\": (\\d+)");

	private static final Pattern EXECUTION = Pattern.compile("\"Execution Time\": ([0-9.]+)");

	private static final Pattern MARIADB_KEY = Pattern.compile("\"key\": \"([^\"]+)\"");

	private static final Pattern MARIADB_PAGES = Pattern.compile("\"pages_accessed\": (\\d+)");

	private static final Pattern MARIADB_TIME = Pattern.compile("\"r_total_time_ms\": ([0-9.]+)");

	private final TestDatabase database;

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final LedgerDialect dialect;

	private final LedgerStatements sql;

	private long written;

	private OutcomePlans(TestDatabase database) {
		this.database = database;
		this.dataSource = TestDatabases.dataSource(database);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.dialect = LedgerDialect.of(this.dataSource);
		this.sql = new LedgerStatements(this.dialect, TableName.of(TABLE));
	}

	public static void main(String[] args) throws Exception {
		TestDatabase database = (args.length > 0) ? TestDatabase.valueOf(args[0]) : TestDatabase.POSTGRESQL;
		int settled = (args.length > 1) ? Integer.parseInt(args[1]) : 1_000_000;
		int[] counts = (args.length > 2) ? Arrays.stream(args, 2, args.length).mapToInt(Integer::parseInt).toArray()
				: new int[] { 0, 10_000, 100_000 };
		new OutcomePlans(database).run(settled, counts);
		System.exit(0);
	}

	private void run(int settled, int[] counts) throws Exception {
		LedgerSchema.drop(this.dataSource, TABLE);
		LedgerSchema.create(this.dataSource, TABLE);
		try {
			if (this.database == TestDatabase.POSTGRESQL) {
				this.jdbc.execute("ALTER TABLE " + TABLE + " SET (autovacuum_enabled = false)");
			}
			else {
				this.jdbc.execute("ALTER TABLE " + TABLE + " STATS_PERSISTENT = 1, STATS_AUTO_RECALC = 0");
			}
			fill(settled, 0);
			this.jdbc.execute((this.database == TestDatabase.POSTGRESQL) ? "VACUUM ANALYZE " + TABLE
					: "ANALYZE TABLE " + TABLE);
			System.out.printf("%s: %,d settled rows, analysed; the unsettled rows below are added after that%n",
					this.database, settled);
			int unsettled = 0;
			try (JdbcLedger ledger = new JdbcLedger(this.dataSource, TABLE, Redaction.defaults())) {
				for (int count : counts) {
					if (count > unsettled) {
						fill((count - unsettled) * SPREAD, SPREAD);
						unsettled = count;
					}
					explainWrites(ledger, count);
				}
			}
		}
		finally {
			LedgerSchema.drop(this.dataSource, TABLE);
		}
	}

	/** Writes that many rows, settled, or every {@code spread}-th unsettled when spread is not 0. */
	private void fill(int rows, int spread) {
		String status = (spread == 0) ? "'succeeded'"
				: "CASE WHEN MOD(n, " + spread + ") = 0 THEN 'attempting' ELSE 'succeeded' END";
		String result = "CASE WHEN " + status + " = 'succeeded' THEN '{\"ticketId\": \"T-1\"}' END";
		long from = this.written + 1;
		long to = this.written + rows;
		this.written = to;
		if (rows == 0) {
			return;
		}
		if (this.database == TestDatabase.POSTGRESQL) {
			this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, user_id, tool, arguments, status,"
					+ " result, started_at) SELECT md5('a' || n) || md5('b' || n), 'run-' || (n / 10), 'user',"
					+ " 'createTicket', CAST('{\"title\": \"printer on fire\", \"priority\": \"high\"}' AS JSONB), "
					+ status + ", CAST(" + result + " AS JSONB), CURRENT_TIMESTAMP - INTERVAL '1 day' + n *"
					+ " INTERVAL '1 microsecond' FROM generate_series(" + from + ", " + to + ") AS n");
		}
		else {
			this.jdbc.update("INSERT INTO " + TABLE + " (idempotency_key, run_id, user_id, tool, arguments, status,"
					+ " result, started_at) SELECT CONCAT(MD5(CONCAT('a', seq)), MD5(CONCAT('b', seq))), CONCAT('run-',"
					+ " seq DIV 10), 'user', 'createTicket', '{\"title\": \"printer on fire\", \"priority\": \"high\"}', "
					+ status.replace("MOD(n,", "MOD(seq,") + ", " + result.replace("MOD(n,", "MOD(seq,")
					+ ", UTC_TIMESTAMP(6) - INTERVAL 1 DAY + INTERVAL seq MICROSECOND FROM seq_" + from + "_to_" + to);
		}
	}

	private void explainWrites(JdbcLedger ledger, int unsettled) throws Exception {
		ClaimRequest request = new ClaimRequest(new IdempotencyKey("f".repeat(56) + String.format("%08d", unsettled)),
				"run-plans", "user", "createTicket", "{\"title\": \"printer on fire\"}", java.util.Set.of());
		Claim claim = ledger.claim(request);
		long id = this.jdbc.queryForObject("SELECT id FROM " + TABLE + " WHERE idempotency_key = ?", Long.class,
				request.key().value());
		System.out.printf("%n%,d unsettled rows added after the statistics (claimed: %s, row %d)%n", unsettled,
				claim.getClass().getSimpleName(), id);
		for (Write write : writes(id)) {
			if (this.database == TestDatabase.POSTGRESQL) {
				System.out.printf("  %-28s custom plan:  %s%n", write.name(), explainPostgresql(write, "force_custom_plan"));
				System.out.printf("  %-28s generic plan: %s%n", "", explainPostgresql(write, "force_generic_plan"));
			}
			else {
				System.out.printf("  %-28s %s%n", write.name(), explainMariaDb(write));
			}
		}
	}

	/** The ledger's writes of one claimed row, with the parameters it binds. */
	private List<Write> writes(long id) {
		List<Write> writes = new ArrayList<>();
		writes.add(new Write("outcome (succeeded)", this.sql.recordOutcome,
				new Object[] { "succeeded", "{\"ticketId\": \"T-2\"}", null, id }));
		writes.add(new Write("late success's overturn", this.sql.overturnFailure,
				new Object[] { "{\"ticketId\": \"T-2\"}", null, id }));
		writes.add(new Write("heartbeat", this.sql.heartbeat(1), new Object[] { id }));
		writes.add(new Write("reconciler's resolve", this.sql.resolve,
				new Object[] { "failed", null, "no effect found", id, "owner" }));
		return writes;
	}

	private String explainPostgresql(Write write, String planCacheMode) throws Exception {
		String plan;
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			try {
				statement.execute("SET LOCAL plan_cache_mode = " + planCacheMode);
				statement.execute("PREPARE outcome_plans AS " + numbered(write.sql()));
				try (ResultSet row = statement.executeQuery("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE outcome_plans("
						+ literals(write.parameters()) + ")")) {
					row.next();
					plan = row.getString(1);
				}
			}
			finally {
				connection.rollback();
				statement.execute("DEALLOCATE ALL");
				connection.setAutoCommit(true);
			}
		}
		// The top node's buffers count its children's.
		return String.format("%-26s %,7d pages (shared hit + read), %7.3f ms", indexes(INDEX.matcher(plan)),
				first(HIT, plan) + first(READ, plan), Double.parseDouble(firstText(EXECUTION, plan)));
	}

	private String explainMariaDb(Write write) throws Exception {
		String plan;
		try (Connection connection = this.dataSource.getConnection(); Statement statement = connection.createStatement()) {
			connection.setAutoCommit(false);
			try (ResultSet row = statement.executeQuery("ANALYZE FORMAT=JSON " + inlined(write.sql(), write.parameters()))) {
				row.next();
				plan = row.getString(1);
			}
			finally {
				connection.rollback();
				connection.setAutoCommit(true);
			}
		}
		return String.format("%-26s %,7d pages accessed, %7.3f ms", indexes(MARIADB_KEY.matcher(plan)),
				first(MARIADB_PAGES, plan), Double.parseDouble(firstText(MARIADB_TIME, plan)));
	}

	private static String indexes(Matcher matcher) {
		List<String> names = new ArrayList<>();
		while (matcher.find()) {
			names.add(matcher.group(1));
		}
		return names.isEmpty() ? "(no index)" : String.join(", ", names);
	}

	private static long first(Pattern pattern, String text) {
		Matcher matcher = pattern.matcher(text);
		return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
	}

	private static String firstText(Pattern pattern, String text) {
		Matcher matcher = pattern.matcher(text);
		return matcher.find() ? matcher.group(1) : "0";
	}

	/** The statement with its {@code ?} numbered {@code $1, $2, ...}, for {@code PREPARE}. */
	private static String numbered(String sql) {
		StringBuilder numbered = new StringBuilder();
		int n = 0;
		for (char c : sql.toCharArray()) {
			numbered.append((c == '?') ? "$" + (++n) : String.valueOf(c));
		}
		return numbered.toString();
	}

	private static String inlined(String sql, Object[] parameters) {
		StringBuilder inlined = new StringBuilder();
		int n = 0;
		for (char c : sql.toCharArray()) {
			inlined.append((c == '?') ? literal(parameters[n++]) : String.valueOf(c));
		}
		return inlined.toString();
	}

	private static String literals(Object[] parameters) {
		return String.join(", ", Arrays.stream(parameters).map(OutcomePlans::literal).toList());
	}

	private static String literal(Object value) {
		if (value == null) {
			return "NULL";
		}
		if (value instanceof Number) {
			return value.toString();
		}
		return "'" + value.toString().replace("'", "''") + "'";
	}

	private record Write(String name, String sql, Object[] parameters) {
	}

}
