package io.idempotency.sample.web;

import java.time.Duration;
import java.util.List;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.ReplayStatistics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Component;

/** The ledger as the page shows it: its latest rows, and the replay rate. */
@Component
public class LedgerView {

	/**
	 * A ledger row, as the guide's table of columns (docs/ledger-and-databases.md) describes it.
	 *
	 * @param reconciled settled by the reconciler, not by the call itself
	 */
	public record Row(String runId, String tool, String status, String arguments, String result, String error,
			int replayCount, int reconcileAttempts, boolean reconciled, String startedAt) {
	}

	private static final String COLUMNS = "SELECT run_id, tool, status, arguments, result, error, replay_count,"
			+ " reconcile_attempts, started_at FROM ";

	private static final RowMapper<Row> ROW = (row, n) -> {
		String status = row.getString(3);
		int attempts = row.getInt(8);
		return new Row(row.getString(1), row.getString(2), status, row.getString(4), row.getString(5), row.getString(6),
				row.getInt(7), attempts, attempts > 0 && (status.equals("succeeded") || status.equals("failed")),
				row.getString(9));
	};

	public record Replays(long executions, long replays, double rate, String warning) {
	}

	private final ObjectProvider<JdbcLedger> ledger;

	private final JdbcTemplate jdbc;

	LedgerView(ObjectProvider<JdbcLedger> ledger, JdbcTemplate jdbc) {
		this.ledger = ledger;
		this.jdbc = jdbc;
	}

	/** The latest rows, newest first; none where idempotency is disabled. */
	public List<Row> latest(int limit) {
		JdbcLedger ledger = this.ledger.getIfAvailable();
		if (ledger == null) {
			return List.of();
		}
		return this.jdbc.query(COLUMNS + ledger.tableName() + " ORDER BY id DESC LIMIT ?", ROW, limit);
	}

	/** The rows of one run, oldest first. */
	public List<Row> ofRun(String runId) {
		JdbcLedger ledger = this.ledger.getIfAvailable();
		if (ledger == null || runId == null) {
			return List.of();
		}
		return this.jdbc.query(COLUMNS + ledger.tableName() + " WHERE run_id = ? ORDER BY id", ROW, runId);
	}

	/** The replay rate over the last 30 days, with the warning a zero rate deserves. */
	public Replays replays() {
		JdbcLedger ledger = this.ledger.getIfAvailable();
		if (ledger == null) {
			return new Replays(0, 0, 0, "Idempotency is disabled: nothing is recorded, and nothing is deduplicated.");
		}
		ledger.flushReplayCounts();
		ReplayStatistics statistics = ledger.replayStatistics(Duration.ofDays(30));
		String warning = (statistics.executions() > 0 && statistics.replays() == 0)
				? "No replay yet. Agents repeat calls; in production, a replay rate of zero over many calls means"
						+ " the keys are not stable (a run id made per call, a timestamp in the arguments): it is broken."
				: null;
		return new Replays(statistics.executions(), statistics.replays(), statistics.replayRate(), warning);
	}

}
