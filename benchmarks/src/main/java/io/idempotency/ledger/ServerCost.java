package io.idempotency.ledger;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.benchmarks.Medians;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What PostgreSQL itself spends on the replay's claim statement, with no Java in the way: {@code pgbench}
 * (PostgreSQL's client tools) runs the ledger's exact claim statement, as {@link LedgerStatements} writes
 * it, against a read of the same row by key and against {@code SELECT 1}, in interleaved rounds, on a table
 * of 10,000 settled rows: latency with one client, throughput with eight. Every key exists, so each claim
 * loses and reads the row, as a replay does.
 * <p>
 * For comparison it also runs the same claim as a PL/pgSQL function that reads first and inserts only when
 * the read finds nothing: an alternative that was measured, not one the library uses (a function is a
 * schema object that every deployment would have to migrate, one per table name).
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.ledger.ServerCost [ROUNDS]}; needs
 * {@code pgbench} on the path.
 */
public final class ServerCost {

	private static final String TABLE = "tool_audit_server_cost";

	private static final int ROWS = 10_000;

	private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");

	private static final Pattern LATENCY = Pattern.compile("latency average = ([0-9.]+) ms");

	private ServerCost() {
	}

	public static void main(String[] args) throws Exception {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 5;
		HikariDataSource dataSource = (HikariDataSource) TestDatabases.dataSource(TestDatabase.POSTGRESQL);
		LedgerSchema.drop(dataSource, TABLE);
		LedgerSchema.create(dataSource, TABLE);
		try {
			new JdbcTemplate(dataSource).update("INSERT INTO " + TABLE + " (idempotency_key, run_id, tool, arguments,"
					+ " status, result, finished_at) SELECT CAST(g AS TEXT), 'run', 'tool', CAST('{\"a\": 1}' AS JSONB),"
					+ " 'succeeded', CAST('{\"account\": \"Henderson Industrial\", \"quantity\": 200}' AS JSONB),"
					+ " CURRENT_TIMESTAMP FROM generate_series(1, " + ROWS + ") AS g");
			new JdbcTemplate(dataSource).execute("VACUUM ANALYZE " + TABLE);
			new JdbcTemplate(dataSource).execute(claimFunction());
			Path scripts = Files.createTempDirectory("server-cost");
			Map<String, Path> statements = new LinkedHashMap<>();
			statements.put("SELECT 1", script(scripts, "one", "SELECT 1"));
			statements.put("read by key", script(scripts, "read", new LedgerStatements(LedgerDialect.POSTGRESQL,
					TableName.of(TABLE)).findClaimed.replace("?", ":k")));
			statements.put("claim (replay)", script(scripts, "claim", claim()));
			statements.put("function (replay)", script(scripts, "function",
					"SELECT * FROM " + TABLE + "_claim(:k, 'run', NULL, 'tool', '{\"a\": 1}')"));
			Map<String, List<double[]>> measured = new LinkedHashMap<>();
			statements.keySet().forEach((name) -> measured.put(name, new ArrayList<>()));
			for (int round = 1; round <= rounds; round++) {
				for (Map.Entry<String, Path> statement : statements.entrySet()) {
					double latency = pgbench(dataSource, statement.getValue(), 1, LATENCY);
					double throughput = pgbench(dataSource, statement.getValue(), 8, TPS);
					measured.get(statement.getKey()).add(new double[] { latency, throughput });
				}
			}
			double readLatency = Medians.of(measured.get("read by key"), 0);
			double readThroughput = Medians.of(measured.get("read by key"), 1);
			System.out.printf("PostgreSQL, pgbench -M prepared, %d rounds, %d rows (medians; ratios to the read by key)%n",
					rounds, ROWS);
			measured.forEach((name, values) -> System.out.printf(
					"  %-18s 1 client: %6.1f us (%.2fx)   8 clients: %8.0f/s (%.2fx)%n", name, Medians.of(values, 0) * 1000,
					Medians.of(values, 0) / readLatency, Medians.of(values, 1), Medians.of(values, 1) / readThroughput));
		}
		finally {
			new JdbcTemplate(dataSource).execute("DROP FUNCTION IF EXISTS " + TABLE + "_claim");
			LedgerSchema.drop(dataSource, TABLE);
		}
		System.exit(0);
	}

	/** The ledger's claim statement, with the key as pgbench's variable and the other values as literals. */
	private static String claim() {
		String claim = new LedgerStatements(LedgerDialect.POSTGRESQL, TableName.of(TABLE)).claim;
		String[] values = { ":k", ":k", "'run'", "NULL", "'tool'", "'{\"a\": 1}'" };
		StringBuilder sql = new StringBuilder();
		int value = 0;
		for (char c : claim.toCharArray()) {
			if (c == '?') {
				sql.append(values[value++]);
			}
			else {
				sql.append(c);
			}
		}
		if (value != values.length) {
			throw new IllegalStateException("The claim statement takes " + value + " parameters, not " + values.length);
		}
		return sql.toString();
	}

	/**
	 * The claim as a function: a plain read by key, and the insert only when the read found nothing (then a
	 * second read if the insert lost to a claim committed after the first read's snapshot).
	 */
	private static String claimFunction() {
		String answer = "SELECT NULL::BIGINT, t.id, t.user_id, t.status, t.result, t.error, t.started_at, t.finished_at,"
				+ " t.replay_count, t.reconcile_attempts, t.reconcile_owner FROM " + TABLE + " AS t"
				+ " WHERE t.idempotency_key = p_key";
		return "CREATE FUNCTION " + TABLE + "_claim(p_key VARCHAR, p_run VARCHAR, p_user VARCHAR, p_tool VARCHAR,"
				+ " p_arguments TEXT) RETURNS TABLE (won_id BIGINT, id BIGINT, user_id VARCHAR, status VARCHAR,"
				+ " result JSONB, error TEXT, started_at TIMESTAMPTZ, finished_at TIMESTAMPTZ, replay_count INTEGER,"
				+ " reconcile_attempts INTEGER, reconcile_owner VARCHAR) LANGUAGE plpgsql AS $$ BEGIN"
				+ " RETURN QUERY " + answer + "; IF FOUND THEN RETURN; END IF;"
				+ " RETURN QUERY INSERT INTO " + TABLE + " AS t (idempotency_key, run_id, user_id, tool, arguments,"
				+ " status, started_at) VALUES (p_key, p_run, p_user, p_tool, CAST(p_arguments AS JSONB), 'attempting',"
				+ " CURRENT_TIMESTAMP) ON CONFLICT (idempotency_key) DO NOTHING RETURNING t.id, NULL::BIGINT,"
				+ " NULL::VARCHAR, NULL::VARCHAR, NULL::JSONB, NULL::TEXT, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ,"
				+ " NULL::INTEGER, NULL::INTEGER, NULL::VARCHAR; IF FOUND THEN RETURN; END IF;"
				+ " RETURN QUERY " + answer + "; END $$";
	}

	private static Path script(Path directory, String name, String sql) throws IOException {
		return Files.writeString(directory.resolve(name + ".sql"),
				"\\set k random(1, " + ROWS + ")\n" + sql + ";\n", StandardCharsets.UTF_8);
	}

	private static double pgbench(HikariDataSource dataSource, Path script, int clients, Pattern figure)
			throws IOException, InterruptedException {
		URI url = URI.create(dataSource.getJdbcUrl().substring("jdbc:".length()));
		String user = (dataSource.getUsername() != null) ? dataSource.getUsername() : userOf(url);
		List<String> command = List.of("pgbench", "-n", "-M", "prepared", "-h", url.getHost(), "-p",
				String.valueOf((url.getPort() > 0) ? url.getPort() : 5432), "-U", user, "-c", String.valueOf(clients),
				"-j", String.valueOf(Math.min(clients, 2)), "-T", "5", "-f", script.toString(),
				url.getPath().substring(1));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		if (dataSource.getPassword() != null) {
			builder.environment().put("PGPASSWORD", dataSource.getPassword());
		}
		Process process = builder.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		Matcher matcher = figure.matcher(output);
		if (process.waitFor() != 0 || !matcher.find()) {
			throw new IllegalStateException("pgbench failed: " + String.join(" ", command) + "\n" + output);
		}
		return Double.parseDouble(matcher.group(1));
	}

	private static String userOf(URI url) {
		Matcher user = Pattern.compile("(?:^|&)user=([^&]+)").matcher((url.getQuery() != null) ? url.getQuery() : "");
		return user.find() ? user.group(1) : "postgres";
	}

}
