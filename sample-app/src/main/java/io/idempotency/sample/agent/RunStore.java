package io.idempotency.sample.agent;

import java.sql.Timestamp;
import java.util.List;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Component;

/**
 * The agent's runs, kept in the sample's database ({@code sample_runs}) rather than in memory: the page shows
 * them, and its chat, after a reload or a restart, beside the ledger rows of the same runs.
 */
@Component
class RunStore {

	private static final JsonMapper JSON = new JsonMapper();

	private static final TypeReference<List<RunTranscript.ToolCall>> CALLS = new TypeReference<>() {
	};

	private static final String COLUMNS = "SELECT run_id, request, idempotency_off, asked_at, answer, calls FROM sample_runs";

	private static final RowMapper<RunTranscript> RUN = (row, n) -> RunTranscript.restored(row.getString(1),
			row.getString(2), row.getBoolean(3), row.getTimestamp(4).toInstant(), row.getString(5),
			JSON.readValue(row.getString(6), CALLS));

	private final JdbcTemplate jdbc;

	RunStore(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	void save(RunTranscript run) {
		this.jdbc.update("INSERT INTO sample_runs (run_id, request, idempotency_off, asked_at, answer, calls)"
				+ " VALUES (?, ?, ?, ?, ?, ?)", run.getRunId(), run.getRequest(), run.isIdempotencyOff(),
				Timestamp.from(run.getAt()), run.getAnswer(), JSON.writeValueAsString(run.getCalls()));
	}

	/** The latest runs, newest first. */
	List<RunTranscript> latest(int limit) {
		return this.jdbc.query(COLUMNS + " ORDER BY id DESC LIMIT ?", RUN, limit);
	}

	/** What was asked and answered in one run, oldest first: a resumed run has more than one. */
	List<RunTranscript> ofRun(String runId) {
		return this.jdbc.query(COLUMNS + " WHERE run_id = ? ORDER BY id", RUN, runId);
	}

}
