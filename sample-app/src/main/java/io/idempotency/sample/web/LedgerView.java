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
	 * @param key the call's idempotency key
	 * @param reconciled settled by the reconciler, not by the call itself nor by hand
	 * @param settledBy who settled the call by hand, or {@code null}
	 * @param settleReason why, as that operator wrote it, or {@code null}
	 */
	public record Row(String key, String runId, String tool, String status, String arguments, String result,
			String error, int replayCount, int reconcileAttempts, boolean reconciled, String settledBy,
			String settleReason, String startedAt) {
	}

	// An operator who sent a call back to the reconciler is in settled_by too; the row is settled by hand when
	// its outcome was written by that settlement (finished_at = settled_at), not by a later pass.
	private static final String COLUMNS = "SELECT run_id, tool, status, arguments, result, error, replay_count,"
			+ " reconcile_attempts, started_at, idempotency_key, settled_by, settle_reason,"
			+ " CASE WHEN settled_at >= finished_at THEN 1 ELSE 0 END FROM ";

	private static final RowMapper<Row> ROW = (row, n) -> {
		String status = row.getString(3);
		int attempts = row.getInt(8);
		boolean settled = status.equals("succeeded") || status.equals("failed");
		boolean byHand = settled && row.getString(11) != null && row.getInt(13) == 1;
		return new Row(row.getString(10), row.getString(1), row.getString(2), status, row.getString(4),
				row.getString(5), row.getString(6), row.getInt(7), attempts, settled && attempts > 0 && !byHand,
				byHand ? row.getString(11) : null, byHand ? row.getString(12) : null, row.getString(9));
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
