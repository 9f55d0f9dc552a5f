package io.idempotency.reconcile;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalQueue;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.ApprovalRefusedException.Reason;

/**
 * What a person does with the calls that wait for their approval before the effect: lists them, and approves
 * or rejects each; and what expires those nobody decided on in time. A call of a tool that needs approval
 * ({@code @IdempotentTool(requiresApproval = true)}, or its approval method) is claimed as waiting, and executes
 * nothing: its run is told it awaits approval.
 *
 * <p>A decision names the call by its key and records who decided, when (the database clock) and why, in the
 * ledger row. An approved call executes when its run calls it again with the same arguments (the agent resumed,
 * on this instance or another, now or days later), exactly once however many instances resume it at once; a
 * rejected or expired one is refused with the decision's reason, and never executes. Each decision is published
 * as an {@link ApprovalDecidedEvent}, for the application to resume the run.
 *
 * <p>A decision is refused with an {@link ApprovalRefusedException}, and nothing written, when the key is
 * unknown, the call never asked for approval or was decided already, or who or why is missing or is text the
 * ledger does not store. Each write holds only while the call still waits: of two decisions at once, or a
 * decision and the call's expiry, exactly one is written, and the other is told it was decided.
 *
 * <p>It counts the decisions it wrote, and those it refused by reason, since it started: the starter's metrics
 * read them. Thread-safe.
 */
public final class Approvals {

	private static final org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(Approvals.class);

	/** How many calls one pass expires at most; the next pass takes the rest. */
	static final int EXPIRY_BATCH = 100;

	private final ApprovalQueue ledger;

	private final Duration expireAfter;

	private final Consumer<ApprovalDecidedEvent> published;

	private final AtomicLong approved = new AtomicLong();

	private final AtomicLong rejected = new AtomicLong();

	private final AtomicLong expired = new AtomicLong();

	private final Map<Reason, AtomicLong> refused = new EnumMap<>(Reason.class);

	/**
	 * @param ledger the ledger's approvals ({@code JdbcLedger.approvals()})
	 * @param expireAfter how long a call waits for a decision before it expires
	 * @param published what each decision is published to (an application's event publisher), once written; a
	 * publisher that throws is logged, and undoes nothing
	 */
	public Approvals(ApprovalQueue ledger, Duration expireAfter, Consumer<ApprovalDecidedEvent> published) {
		this.ledger = Objects.requireNonNull(ledger, "ledger");
		Objects.requireNonNull(expireAfter, "expireAfter");
		if (expireAfter.isNegative() || expireAfter.isZero()) {
			throw new IllegalArgumentException("expireAfter must be more than zero, but was " + expireAfter);
		}
		this.expireAfter = expireAfter;
		this.published = Objects.requireNonNull(published, "published");
		for (Reason reason : Reason.values()) {
			this.refused.put(reason, new AtomicLong());
		}
	}

	/** How long a call waits for a decision before it expires. */
	public Duration expireAfter() {
		return this.expireAfter;
	}

	/**
	 * The calls that wait for approval, in the order of their rows' ids: tool, run, user, arguments as stored
	 * (redacted), why approval is needed, and how long ago each asked.
	 * @param tool the tool whose calls to read, or {@code null} for every tool
	 * @param afterId the row id after which to read (zero from the start)
	 * @param limit the most calls to read
	 */
	public List<ApprovalRequest> awaiting(String tool, long afterId, int limit) {
		return this.ledger.awaiting(tool, afterId, limit);
	}

	/** How many calls wait for approval now. */
	public long countAwaiting() {
		return this.ledger.countAwaiting();
	}

	/** The call of a key, if it asked for approval: waiting, or decided and how. */
	public Optional<ApprovalRequest> find(IdempotencyKey key) {
		return this.ledger.find(Objects.requireNonNull(key, "key")).filter((request) -> request.reason() != null);
	}

	/**
	 * Approves a call that waits: it executes when its run calls it again with the same arguments.
	 * @param approver who approves it
	 * @param reason why
	 * @return the call, approved
	 * @throws ApprovalRefusedException if the decision is refused; nothing was written
	 */
	public ApprovalRequest approve(IdempotencyKey key, String approver, String reason) {
		return decide(key, true, approver, reason);
	}

	/**
	 * Rejects a call that waits: it never executes, and a repeat is refused with this reason.
	 * @param approver who rejects it
	 * @param reason why: what the model is told
	 * @return the call, rejected
	 * @throws ApprovalRefusedException if the decision is refused; nothing was written
	 */
	public ApprovalRequest reject(IdempotencyKey key, String approver, String reason) {
		return decide(key, false, approver, reason);
	}

	/**
	 * Expires the calls that have waited longer than {@link #expireAfter()}, at most a batch of them, oldest
	 * first: each is recorded expired, and published. The reconciler's schedule runs it.
	 * @return the calls expired
	 */
	public List<ApprovalRequest> expireOverdue() {
		List<ApprovalRequest> expiredNow = this.ledger.expire(this.expireAfter,
				"Nobody approved it within " + this.expireAfter.toString().substring(2).toLowerCase(java.util.Locale.ROOT),
				EXPIRY_BATCH);
		for (ApprovalRequest request : expiredNow) {
			this.expired.incrementAndGet();
			publish(request, LedgerStatus.EXPIRED);
		}
		return expiredNow;
	}

	/** How many calls this instance approved since it started. */
	public long approved() {
		return this.approved.get();
	}

	/** How many calls this instance rejected since it started. */
	public long rejected() {
		return this.rejected.get();
	}

	/** How many calls this instance expired since it started. */
	public long expired() {
		return this.expired.get();
	}

	/** How many decisions this instance refused since it started, for this reason. */
	public long refused(Reason reason) {
		return this.refused.get(Objects.requireNonNull(reason, "reason")).get();
	}

	private ApprovalRequest decide(IdempotencyKey key, boolean approve, String approver, String reason) {
		Objects.requireNonNull(key, "key");
		try {
			SettlementText.Refusal refusal = refusal(key);
			SettlementText.checkOperator(approver, approve ? "approves the call" : "rejects the call", refusal);
			SettlementText.checkReason(reason, approve ? "say why the call is approved" : "say why the call is rejected",
					refusal);
			if (!this.ledger.decide(key, approve, approver, reason)) {
				throw notWaiting(key);
			}
		}
		catch (ApprovalRefusedException ex) {
			this.refused.get(ex.reason()).incrementAndGet();
			throw ex;
		}
		(approve ? this.approved : this.rejected).incrementAndGet();
		LedgerStatus decision = approve ? LedgerStatus.APPROVED : LedgerStatus.REJECTED;
		ApprovalRequest decided = this.ledger.find(key).orElseThrow(() -> new IllegalStateException(
				"The call of " + key + " was " + decision + " but is no longer in the ledger"));
		publish(decided, decision);
		return decided;
	}

	/** Why a call that was not decided now did not wait: unknown, never asked, or decided already. */
	private ApprovalRefusedException notWaiting(IdempotencyKey key) {
		Optional<ApprovalRequest> found = this.ledger.find(key);
		if (found.isEmpty()) {
			return new ApprovalRefusedException(key, Reason.UNKNOWN_KEY, "the ledger has no call of this key");
		}
		ApprovalRequest call = found.get();
		if (call.reason() == null) {
			return new ApprovalRefusedException(key, Reason.NOT_AWAITING_APPROVAL,
					"the call never asked for approval (it is " + call.entry().status().name().toLowerCase(java.util.Locale.ROOT) + ")");
		}
		String how = switch (call.entry().status()) {
			case EXPIRED -> "it expired, nobody having decided in time";
			case REJECTED -> "it was rejected by " + call.decidedBy();
			default -> "it was approved by " + call.decidedBy();
		};
		return new ApprovalRefusedException(key, Reason.ALREADY_DECIDED, "the call was decided already: " + how);
	}

	/**
	 * Publishes a decision that is written already: a listener that fails is logged, and neither undoes the
	 * decision nor keeps the others from being published.
	 */
	private void publish(ApprovalRequest request, LedgerStatus decision) {
		try {
			this.published.accept(new ApprovalDecidedEvent(request, decision));
		}
		catch (RuntimeException ex) {
			logger.atWarn()
				.addKeyValue("idempotency.tool", request.entry().tool())
				.addKeyValue("idempotency.key", request.entry().key().value())
				.addKeyValue("idempotency.run", request.entry().runId())
				.log("The decision on {} ({}) is written, but a listener of its event failed: {}. The run it names is"
						+ " resumed only by what reads the ledger", request.entry().key(),
						decision.name().toLowerCase(java.util.Locale.ROOT), String.valueOf(ex), ex);
		}
	}

	private static SettlementText.Refusal refusal(IdempotencyKey key) {
		return new SettlementText.Refusal((why) -> new ApprovalRefusedException(key, Reason.MISSING_REASON, why),
				(why) -> new ApprovalRefusedException(key, Reason.INVALID_REQUEST, why));
	}

}
