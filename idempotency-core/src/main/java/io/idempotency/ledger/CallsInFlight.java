package io.idempotency.ledger;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.idempotency.key.IdempotencyKey;

/**
 * The calls a ledger claimed whose outcome is not yet written, by the id of the row each claim won: its instance
 * is executing them, or holds their outcome to be written behind their callers, beats for them, and writes their
 * rows by id. Two claims of one key (the first's row deleted by hand while its call ran) are two calls; of each
 * key, the row its latest claim here won is the one whose waiting outcome answers a repeat. Thread-safe.
 */
final class CallsInFlight {

	private final Map<Long, Running> byRow = new ConcurrentHashMap<>();

	private final Map<IdempotencyKey, Long> latestByKey = new ConcurrentHashMap<>();

	/** A claim won and committed: its call is in flight until its outcome is written, or given up on. */
	void claimed(Claim.Won won, ClaimRequest request, String storedArguments) {
		this.byRow.put(won.rowId(), new Running(request, storedArguments));
		this.latestByKey.put(won.key(), won.rowId());
	}

	/**
	 * The row the claim won with this outcome, as it will be written (its times are the database's, not yet
	 * known), where the claim's call is in flight here, and so holds its claim; {@code null} otherwise.
	 */
	LedgerEntry outcome(Claim.Won claim, LedgerStatus status, String resultJson, String error) {
		Running running = this.byRow.get(claim.rowId());
		if (running == null || !running.key().equals(claim.key())) {
			return null;
		}
		return new LedgerEntry(claim.rowId(), claim.key(), running.runId(), running.userId(), running.tool(),
				running.arguments(), status, resultJson, error, null, null, 0, 0, null);
	}

	/** The row the key's latest claim here won, while its call is in flight; {@code null} otherwise. */
	Long latestRow(IdempotencyKey key) {
		return this.latestByKey.get(key);
	}

	/** The call of this row has ended here (a later claim of its key may still be in flight). */
	void ended(IdempotencyKey key, long rowId) {
		this.byRow.remove(rowId);
		this.latestByKey.remove(key, rowId);
	}

	/** The ids of the rows of the calls in flight. */
	List<Long> rows() {
		return List.copyOf(this.byRow.keySet());
	}

	int size() {
		return this.byRow.size();
	}

	/** A call claimed here: what a repeat compares or is answered from, once its outcome waits. */
	private record Running(IdempotencyKey key, String runId, String userId, String tool, String arguments) {

		Running(ClaimRequest request, String storedArguments) {
			this(request.key(), request.runId(), request.userId(), request.tool(), storedArguments);
		}

	}

}
