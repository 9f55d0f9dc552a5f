package io.idempotency.ledger;

import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The reconciler's queue in the ledger table: stale rows leased to one caller at a time (in one statement
 * where the database can, else a locking read and an update in one transaction), then resolved or given
 * back, each write only while the lease holds.
 */
final class Leases {

	private static final int[] RESOLVE_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.BIGINT,
			Types.VARCHAR };

	private final JdbcTemplate jdbc;

	private final LedgerStatements sql;

	private final LedgerDialect dialect;

	private final LedgerRows rows;

	private final OwnTransactions transactions;

	Leases(LedgerDatabase database) {
		this.jdbc = database.jdbc();
		this.sql = database.sql();
		this.dialect = database.dialect();
		this.rows = database.rows();
		this.transactions = database.transactions();
	}

	/**
	 * Takes a batch of rows that have been attempting or unknown for longer than a threshold (since their
	 * claim or their last heartbeat, whichever is later), for the reconciler, and leases them: until the lease
	 * ends, or the row is resolved or postponed by this lease, no other caller (on this or any other instance)
	 * receives the same rows.
	 * @param olderThan how long a row must have been unsettled
	 * @param limit the most rows to take
	 * @param leaseFor how long the rows are reserved for the caller
	 * @return the leased rows, oldest first, each carrying its lease in {@link LedgerEntry#reconcileOwner()}
	 */
	List<LedgerEntry> leaseStale(Duration olderThan, int limit, Duration leaseFor) {
		return lease(this.sql.findStale, List.of(), olderThan, limit, leaseFor);
	}

	/**
	 * As {@link #leaseStale(Duration, int, Duration)}, for the rows of the given tools only: for tools whose
	 * calls legitimately run longer than others.
	 */
	List<LedgerEntry> leaseStaleOf(Set<String> tools, Duration olderThan, int limit, Duration leaseFor) {
		if (tools.isEmpty()) {
			return List.of();
		}
		return lease(this.sql.findStaleOf(tools.size()), List.copyOf(tools), olderThan, limit, leaseFor);
	}

	private List<LedgerEntry> lease(String findStale, List<String> tools, Duration olderThan, int limit,
			Duration leaseFor) {
		LedgerRows.requireNotNegative(olderThan, "olderThan");
		LedgerRows.requirePositive(leaseFor, "leaseFor");
		if (limit < 1) {
			throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
		}
		String owner = UUID.randomUUID().toString();
		List<Object> parameters = new ArrayList<>();
		parameters.add(LedgerRows.micros(olderThan));
		parameters.add(LedgerRows.micros(olderThan));
		parameters.addAll(tools);
		parameters.add(limit);
		if (this.dialect.writesReturnRows()) {
			parameters.add(0, owner);
			parameters.add(1, LedgerRows.micros(leaseFor));
			List<LedgerEntry> leased = new ArrayList<>(this.transactions.committed(() -> this.jdbc.query(
					this.sql.leaseInOneStatement(findStale), this.rows::entry, parameters.toArray())));
			leased.sort(Comparator.comparing(LedgerEntry::startedAt).thenComparingLong(LedgerEntry::id));
			return leased;
		}
		return this.transactions.execute((status) -> {
			List<LedgerEntry> stale = this.jdbc.query(findStale, this.rows::entry, parameters.toArray());
			if (stale.isEmpty()) {
				return stale;
			}
			List<Object> lease = new ArrayList<>(stale.size() + 2);
			lease.add(owner);
			lease.add(LedgerRows.micros(leaseFor));
			stale.forEach((entry) -> lease.add(entry.id()));
			this.jdbc.update(this.sql.lease(stale.size()), lease.toArray());
			List<LedgerEntry> leased = new ArrayList<>(stale.size());
			for (LedgerEntry entry : stale) {
				leased.add(new LedgerEntry(entry.id(), entry.key(), entry.runId(), entry.userId(), entry.tool(),
						entry.arguments(), entry.status(), entry.result(), entry.error(), entry.startedAt(),
						entry.finishedAt(), entry.replayCount(), entry.reconcileAttempts() + 1, owner));
			}
			return leased;
		});
	}

	/**
	 * Resolves a leased row as succeeded: the reconciler found that the call took effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	boolean resolveSucceeded(LedgerEntry leased, String resultJson) {
		return resolve(leased, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	/**
	 * Resolves a leased row as failed: the reconciler found that the call did not take effect.
	 * @return whether it was resolved; {@code false} if the lease was lost or the row settled meanwhile
	 */
	boolean resolveFailed(LedgerEntry leased, String error) {
		return resolve(leased, LedgerStatus.FAILED, null, error);
	}

	private boolean resolve(LedgerEntry leased, LedgerStatus outcome, String resultJson, String error) {
		String owner = LedgerRows.requireLease(leased);
		return this.transactions.committed(() -> this.jdbc.update(this.sql.resolve,
				new Object[] { outcome.columnValue(), resultJson, LedgerRows.truncate(error), leased.id(), owner }, RESOLVE_TYPES)) == 1;
	}

	/**
	 * Gives a leased row back unresolved, to be taken again after a pause: the reconcile function could not
	 * tell this time.
	 * @return whether the row was given back; {@code false} if the lease was lost or the row settled
	 */
	boolean postpone(LedgerEntry leased, Duration retryAfter) {
		LedgerRows.requireNotNegative(retryAfter, "retryAfter");
		String owner = LedgerRows.requireLease(leased);
		return this.transactions.committed(() -> this.jdbc.update(this.sql.postpone, LedgerRows.micros(retryAfter), leased.id(), owner)) == 1;
	}

}
