package io.idempotency.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalQueue;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.ReconcileQueue;
import io.idempotency.ledger.Redaction;

/**
 * The ledger in memory, for tests that need no database: the advice's and the reconciler's two contracts
 * ({@link CallLedger}, {@link ReconcileQueue}) on one map under one lock, whose key decides the claim as the
 * table's unique constraint does, and a clock the test moves with {@link #advance(Duration)}.
 *
 * <p>It keeps what the {@link JdbcLedger} guarantees to a call: one winner per key; a repeat answered from the
 * row it lost to (replayed, in progress, previous attempt failed, another user's key); an outcome written
 * only to the row its claim won, while it is attempting, or a success over a failure a reconciler wrote while
 * the call still held its claim; a lease honoured by every write; arguments redacted as the JDBC ledger redacts them; a
 * call that needs a person's approval claimed as waiting for it, decided through {@link #approvals()} (as
 * {@code JdbcLedger.approvals()}), and executed once, by the first claim after it was approved. It keeps nothing
 * else: no heartbeat, no retention, no replay cache, no durability, and no transactions, so a tool that joins
 * its caller's transaction (a transactional tool) is tested on a database. Use it for fast tests of tools,
 * their reconcile methods and what the model reads; keep a test of the application on its real database.
 *
 * <p>Thread-safe. In a Spring Boot test, {@link AutoConfigureInMemoryLedger} puts one in place of the JDBC
 * ledger; {@link LedgerAssertions} asserts on its calls.
 */
public final class InMemoryLedger implements CallLedger, ReconcileQueue {

	private final Redaction redaction;

	private final Map<IdempotencyKey, InMemoryRow> rows = new LinkedHashMap<>();

	private final Map<IdempotencyKey, Integer> replays = new LinkedHashMap<>();

	/** The ids of the rows whose outcome is not recorded yet: their calls hold their claims. */
	private final Set<Long> inFlight = new HashSet<>();

	private Instant now = Instant.parse("2026-01-01T00:00:00Z");

	private long nextId = 1;

	private long approvalsRequested;

	private final ApprovalQueue approvals = new Decisions();

	/** A ledger that redacts the {@linkplain Redaction#defaults() default} argument names, as the JDBC ledger does. */
	public InMemoryLedger() {
		this(Redaction.defaults());
	}

	/**
	 * A ledger that redacts what the given redaction removes.
	 * @param redaction what to remove from arguments before they are kept
	 */
	public InMemoryLedger(Redaction redaction) {
		this.redaction = Objects.requireNonNull(redaction, "redaction");
	}

	/**
	 * Moves the ledger's clock on: calls become stale for the reconciler, its leases and back-off pauses end.
	 * @param duration how far, zero or more
	 */
	public synchronized void advance(Duration duration) {
		if (duration == null || duration.isNegative()) {
			throw new IllegalArgumentException("The ledger's clock moves forward only, but was asked to move by " + duration);
		}
		this.now = this.now.plus(duration);
	}

	/** Forgets every call, for a test that shares the ledger with the tests before it. */
	public synchronized void clear() {
		this.rows.clear();
		this.replays.clear();
		this.inFlight.clear();
	}

	/** The row of a key, as the database would return it. */
	@Override
	public synchronized Optional<LedgerEntry> find(IdempotencyKey key) {
		return Optional.ofNullable(this.rows.get(key)).map(this::entry);
	}

	/**
	 * Every call, in claim order, each with how many repeats were answered from it
	 * ({@link LedgerEntry#replayCount()}).
	 */
	public synchronized List<LedgerEntry> entries() {
		return this.rows.values().stream().map(this::entry).toList();
	}

	/**
	 * How many repeats were answered from this key's call.
	 * @param key the call's key
	 */
	public synchronized int replays(IdempotencyKey key) {
		return this.replays.getOrDefault(key, 0);
	}

	/**
	 * The calls that wait for a person's approval, and the decisions on them, as {@code JdbcLedger.approvals()}
	 * gives them: {@code new Approvals(ledger.approvals(), expireAfter, published)} approves, rejects and expires
	 * them in a test. A call waits from when its claim was made, by this ledger's clock ({@link #advance}).
	 */
	public ApprovalQueue approvals() {
		return this.approvals;
	}

	@Override
	public synchronized Claim claim(ClaimRequest request) {
		InMemoryRow existing = this.rows.get(request.key());
		if (existing == null) {
			String arguments = this.redaction.redact(request.arguments(), request.sensitiveNames());
			InMemoryRow row = new InMemoryRow(this.nextId++, request, arguments, this.now);
			this.rows.put(request.key(), row);
			if (request.needsApproval()) {
				row.status = LedgerStatus.AWAITING_APPROVAL;
				this.approvalsRequested++;
				return new Claim.AwaitingApproval(entry(row), request.approvalReason(), true);
			}
			this.inFlight.add(row.id);
			return new Claim.Won(request.key(), row.id);
		}
		if (!Objects.equals(existing.userId, request.userId())) {
			return new Claim.HeldByAnotherUser(request.key());
		}
		if (existing.status == LedgerStatus.APPROVED) {
			// Approved, and taken by none yet: this claim takes the row, and executes the call.
			existing.status = LedgerStatus.ATTEMPTING;
			this.inFlight.add(existing.id);
			return new Claim.Won(request.key(), existing.id);
		}
		recordReplay(request.key());
		LedgerEntry entry = entry(existing);
		return switch (existing.status) {
			case SUCCEEDED -> new Claim.Replay(entry);
			case FAILED -> new Claim.PreviousAttemptFailed(entry);
			case ATTEMPTING, UNKNOWN -> new Claim.InProgress(entry);
			case AWAITING_APPROVAL -> new Claim.AwaitingApproval(entry, existing.request.approvalReason(), false);
			case REJECTED, EXPIRED -> new Claim.NotApproved(entry, existing.decisionReason);
			case APPROVED -> throw new IllegalStateException("The approved row of " + request.key() + " is taken");
		};
	}

	@Override
	public boolean recordSucceeded(Claim.Won claim, String resultJson) {
		return record(claim, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	@Override
	public boolean recordSucceededWithoutResult(Claim.Won claim, String reason) {
		return record(claim, LedgerStatus.SUCCEEDED, null, reason);
	}

	@Override
	public boolean recordFailed(Claim.Won claim, String error) {
		return record(claim, LedgerStatus.FAILED, null, error);
	}

	@Override
	public boolean recordUnknown(Claim.Won claim, String error) {
		return record(claim, LedgerStatus.UNKNOWN, null, error);
	}

	private synchronized boolean record(Claim.Won claim, LedgerStatus outcome, String resultJson, String error) {
		Objects.requireNonNull(claim, "claim");
		InMemoryRow row = this.rows.get(claim.key());
		boolean holdsClaim = this.inFlight.remove(claim.rowId());
		// The row its claim won, and no later one of the same key (the first forgotten while its call ran).
		if (row == null || row.id != claim.rowId()) {
			return false;
		}
		// A failure a reconciler wrote while the call still ran meant no effect was found yet: the effect is here.
		boolean overturns = outcome == LedgerStatus.SUCCEEDED && holdsClaim && row.status == LedgerStatus.FAILED;
		if (row.status != LedgerStatus.ATTEMPTING && !overturns) {
			return false;
		}
		row.settle(outcome, resultJson, error, this.now);
		return true;
	}

	@Override
	public synchronized void recordReplay(IdempotencyKey key) {
		this.replays.merge(Objects.requireNonNull(key, "key"), 1, Integer::sum);
	}

	@Override
	public Redaction redaction() {
		return this.redaction;
	}

	@Override
	public synchronized List<LedgerEntry> leaseStaleOf(Set<String> tools, Duration olderThan, int limit,
			Duration leaseFor) {
		List<LedgerEntry> leased = new ArrayList<>();
		this.rows.values()
			.stream()
			.filter((row) -> tools.contains(row.tool) && row.status.isUnsettled())
			.filter((row) -> row.startedAt.isBefore(this.now.minus(olderThan)))
			.filter((row) -> row.reconcileAfter == null || row.reconcileAfter.isBefore(this.now))
			.sorted(Comparator.comparing((InMemoryRow row) -> row.startedAt))
			.limit(limit)
			.forEach((row) -> {
				row.owner = UUID.randomUUID().toString();
				row.reconcileAfter = this.now.plus(leaseFor);
				row.attempts++;
				leased.add(entry(row));
			});
		return leased;
	}

	@Override
	public synchronized boolean resolveSucceeded(LedgerEntry leased, String resultJson) {
		return resolve(leased, LedgerStatus.SUCCEEDED, resultJson, null);
	}

	@Override
	public synchronized boolean resolveFailed(LedgerEntry leased, String error) {
		return resolve(leased, LedgerStatus.FAILED, null, error);
	}

	private boolean resolve(LedgerEntry leased, LedgerStatus outcome, String resultJson, String error) {
		InMemoryRow row = leasedRow(leased);
		if (row == null) {
			return false;
		}
		row.settle(outcome, resultJson, error, this.now);
		row.owner = null;
		row.reconcileAfter = null;
		return true;
	}

	@Override
	public synchronized boolean postpone(LedgerEntry leased, Duration retryAfter) {
		InMemoryRow row = leasedRow(leased);
		if (row == null) {
			return false;
		}
		row.owner = null;
		row.reconcileAfter = this.now.plus(retryAfter);
		return true;
	}

	/** The row of a lease that still holds it, and is unsettled; {@code null} otherwise. */
	private InMemoryRow leasedRow(LedgerEntry leased) {
		InMemoryRow row = this.rows.get(leased.key());
		boolean holds = row != null && row.status.isUnsettled() && row.owner != null
				&& row.owner.equals(leased.reconcileOwner());
		return holds ? row : null;
	}

	private LedgerEntry entry(InMemoryRow row) {
		return row.entry(this.replays.getOrDefault(row.request.key(), 0));
	}

	private ApprovalRequest request(InMemoryRow row) {
		Duration age = Duration.between(row.startedAt, this.now);
		return new ApprovalRequest(entry(row), row.request.approvalReason(), age, row.decidedBy, row.decidedAt,
				row.decisionReason);
	}

	/** The approvals of this ledger's calls, under its lock. */
	private final class Decisions implements ApprovalQueue {

		@Override
		public List<ApprovalRequest> awaiting(String tool, long afterId, int limit) {
			if (limit < 1) {
				throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
			}
			synchronized (InMemoryLedger.this) {
				return InMemoryLedger.this.rows.values()
					.stream()
					.filter((row) -> row.status == LedgerStatus.AWAITING_APPROVAL && row.id > afterId)
					.filter((row) -> tool == null || tool.equals(row.tool))
					.sorted(Comparator.comparingLong((InMemoryRow row) -> row.id))
					.limit(limit)
					.map(InMemoryLedger.this::request)
					.toList();
			}
		}

		@Override
		public Optional<ApprovalRequest> find(IdempotencyKey key) {
			synchronized (InMemoryLedger.this) {
				return Optional.ofNullable(InMemoryLedger.this.rows.get(key)).map(InMemoryLedger.this::request);
			}
		}

		@Override
		public boolean decide(IdempotencyKey key, boolean approved, String decidedBy, String reason) {
			synchronized (InMemoryLedger.this) {
				InMemoryRow row = InMemoryLedger.this.rows.get(key);
				if (row == null || row.status != LedgerStatus.AWAITING_APPROVAL) {
					return false;
				}
				row.decide(approved ? LedgerStatus.APPROVED : LedgerStatus.REJECTED, decidedBy, reason,
						InMemoryLedger.this.now);
				return true;
			}
		}

		@Override
		public List<ApprovalRequest> expire(Duration olderThan, String reason, int limit) {
			if (olderThan == null || olderThan.isNegative()) {
				throw new IllegalArgumentException("olderThan must be zero or more, but was " + olderThan);
			}
			if (limit < 1) {
				throw new IllegalArgumentException("limit must be at least 1, but was " + limit);
			}
			synchronized (InMemoryLedger.this) {
				Instant before = InMemoryLedger.this.now.minus(olderThan);
				List<ApprovalRequest> expired = new ArrayList<>();
				InMemoryLedger.this.rows.values()
					.stream()
					.filter((row) -> row.status == LedgerStatus.AWAITING_APPROVAL && row.startedAt.isBefore(before))
					.sorted(Comparator.comparing((InMemoryRow row) -> row.startedAt))
					.limit(limit)
					.toList()
					.forEach((row) -> {
						row.decide(LedgerStatus.EXPIRED, null, reason, InMemoryLedger.this.now);
						expired.add(request(row));
					});
				return expired;
			}
		}

		@Override
		public long countAwaiting() {
			synchronized (InMemoryLedger.this) {
				return InMemoryLedger.this.rows.values()
					.stream()
					.filter((row) -> row.status == LedgerStatus.AWAITING_APPROVAL)
					.count();
			}
		}

		@Override
		public long requested() {
			synchronized (InMemoryLedger.this) {
				return InMemoryLedger.this.approvalsRequested;
			}
		}

	}

}
