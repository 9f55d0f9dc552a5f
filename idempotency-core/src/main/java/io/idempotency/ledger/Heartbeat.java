package io.idempotency.ledger;

import java.util.List;

/**
 * Beats for the calls in flight here: marks their rows as still executing, in batches, on the connection the
 * heartbeat keeps for itself ({@link HeartbeatConnection}), so that the reconciler leaves them alone however
 * long they run.
 */
final class Heartbeat implements AutoCloseable {

	/** The most rows one beat's statement marks. */
	private static final int BATCH = 100;

	private final CallsInFlight inFlight;

	private final LedgerStatements sql;

	private final HeartbeatConnection connection;

	Heartbeat(LedgerDatabase database, CallsInFlight inFlight) {
		this.inFlight = inFlight;
		this.sql = database.sql();
		this.connection = new HeartbeatConnection(database.dataSource(), database.jdbc().getExceptionTranslator());
	}

	/** Marks the row of every call in flight here; how many rows were marked. */
	int beat() {
		// The first beat takes the heartbeat's own connection, before the calls it protects can exhaust the pool.
		this.connection.reserve();
		List<Long> rows = this.inFlight.rows();
		int marked = 0;
		for (int from = 0; from < rows.size(); from += BATCH) {
			List<Long> batch = rows.subList(from, Math.min(rows.size(), from + BATCH));
			marked += this.connection.update(this.sql.heartbeat(batch.size()), batch);
		}
		return marked;
	}

	/** How many calls are in flight here: the calls it beats for. */
	int beatingFor() {
		return this.inFlight.size();
	}

	/** Gives the heartbeat's connection back to the pool; the next beat takes one again. */
	@Override
	public void close() {
		this.connection.close();
	}

}
