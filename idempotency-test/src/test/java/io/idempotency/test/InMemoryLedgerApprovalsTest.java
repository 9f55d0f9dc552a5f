package io.idempotency.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.ApprovalDecidedEvent;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.Approvals;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The in-memory ledger honours approvals as the JDBC ledger does: a call that needs one is claimed as waiting and
 * executes nothing; a person decides through {@link Approvals} over {@link InMemoryLedger#approvals()}; the
 * approved call is taken by exactly one claim; a rejected or expired one is refused with the reason.
 */
class InMemoryLedgerApprovalsTest {

	private static final String ARGUMENTS = "{\"amount\":5000}";

	private final InMemoryLedger ledger = new InMemoryLedger();

	private final List<ApprovalDecidedEvent> published = new CopyOnWriteArrayList<>();

	private final Approvals approvals = new Approvals(this.ledger.approvals(), Duration.ofHours(1), this.published::add);

	private final ClaimRequest refund = new ClaimRequest(IdempotencyKeys.derive("refund", ARGUMENTS, "r1"), "r1",
			"rep-1", "refund", ARGUMENTS).withApproval("a refund over 1,000");

	@Test
	void aCallThatNeedsApprovalIsClaimedAsWaitingAndEveryRepeatIsToldTheSame() {
		Claim first = this.ledger.claim(this.refund);
		Claim repeat = this.ledger.claim(this.refund);

		assertThat(first).isInstanceOfSatisfying(Claim.AwaitingApproval.class, (awaiting) -> {
			assertThat(awaiting.first()).isTrue();
			assertThat(awaiting.reason()).isEqualTo("a refund over 1,000");
			assertThat(awaiting.entry().status()).isEqualTo(LedgerStatus.AWAITING_APPROVAL);
		});
		assertThat(repeat).isInstanceOfSatisfying(Claim.AwaitingApproval.class, (awaiting) -> {
			assertThat(awaiting.first()).isFalse();
			assertThat(awaiting.reason()).isEqualTo("a refund over 1,000");
		});
		assertThat(this.approvals.countAwaiting()).isEqualTo(1);
		assertThat(this.ledger.approvals().requested()).isEqualTo(1);
		List<ApprovalRequest> listed = this.approvals.awaiting(null, 0, 10);
		assertThat(listed).singleElement().satisfies((request) -> {
			assertThat(request.entry().key()).isEqualTo(this.refund.key());
			assertThat(request.reason()).isEqualTo("a refund over 1,000");
			assertThat(request.isAwaiting()).isTrue();
		});
		assertThat(this.approvals.awaiting("another_tool", 0, 10)).isEmpty();
		assertThat(this.approvals.awaiting(null, listed.get(0).entry().id(), 10)).isEmpty();
		// Nothing holds a claim: a reconciler finds nothing to settle.
		assertThat(this.ledger.leaseStaleOf(java.util.Set.of("refund"), Duration.ZERO, 10, Duration.ofMinutes(1)))
			.isEmpty();
	}

	@Test
	void theApprovedCallIsTakenByOneClaimOnlyAndThenReplayed() {
		this.ledger.claim(this.refund);
		long rowId = row().id();

		ApprovalRequest approved = this.approvals.approve(this.refund.key(), "ops", "ok");

		assertThat(approved.entry().status()).isEqualTo(LedgerStatus.APPROVED);
		assertThat(approved.decidedBy()).isEqualTo("ops");
		assertThat(approved.decisionReason()).isEqualTo("ok");
		assertThat(this.published).singleElement().satisfies((event) -> assertThat(event.approved()).isTrue());
		assertThat(this.approvals.countAwaiting()).isZero();
		Claim taken = this.ledger.claim(this.refund);
		assertThat(taken).isInstanceOfSatisfying(Claim.Won.class, (won) -> assertThat(won.rowId()).isEqualTo(rowId));
		assertThat(this.ledger.claim(this.refund)).as("another instance resuming the run meanwhile")
			.isInstanceOf(Claim.InProgress.class);
		assertThat(this.ledger.recordSucceeded((Claim.Won) taken, "\"refunded\"")).isTrue();
		assertThat(this.ledger.claim(this.refund)).isInstanceOfSatisfying(Claim.Replay.class,
				(replay) -> assertThat(replay.result()).isEqualTo("\"refunded\""));
		assertThat(this.approvals.find(this.refund.key())).hasValueSatisfying((request) -> {
			assertThat(request.entry().status()).isEqualTo(LedgerStatus.SUCCEEDED);
			assertThat(request.decidedBy()).isEqualTo("ops");
		});
	}

	@Test
	void anotherUsersClaimNeverTakesTheApprovedCall() {
		this.ledger.claim(this.refund);
		this.approvals.approve(this.refund.key(), "ops", "ok");

		ClaimRequest another = new ClaimRequest(this.refund.key(), "r1", "rep-2", "refund", ARGUMENTS)
			.withApproval("a refund over 1,000");

		assertThat(this.ledger.claim(another)).isInstanceOf(Claim.HeldByAnotherUser.class);
		assertThat(row().status()).isEqualTo(LedgerStatus.APPROVED);
	}

	@Test
	void aRejectedCallIsRefusedWithThePersonsReasonAndNeverTaken() {
		this.ledger.claim(this.refund);

		this.approvals.reject(this.refund.key(), "ops", "the customer was refunded by cheque");

		assertThat(this.ledger.claim(this.refund)).isInstanceOfSatisfying(Claim.NotApproved.class, (refused) -> {
			assertThat(refused.reason()).isEqualTo("the customer was refunded by cheque");
			assertThat(refused.expired()).isFalse();
		});
		assertThat(row().status()).isEqualTo(LedgerStatus.REJECTED);
		assertThat(this.published).singleElement().satisfies((event) -> assertThat(event.approved()).isFalse());
	}

	@Test
	void aCallNobodyDecidedOnInTimeExpiresByTheLedgersClock() {
		this.ledger.claim(this.refund);
		assertThat(this.approvals.expireOverdue()).as("not overdue yet").isEmpty();

		this.ledger.advance(Duration.ofHours(2));

		assertThat(this.approvals.expireOverdue()).singleElement()
			.satisfies((expired) -> assertThat(expired.entry().status()).isEqualTo(LedgerStatus.EXPIRED));
		assertThat(this.ledger.claim(this.refund)).isInstanceOfSatisfying(Claim.NotApproved.class, (refused) -> {
			assertThat(refused.expired()).isTrue();
			assertThat(refused.reason()).contains("1h");
		});
		assertThat(this.approvals.expired()).isEqualTo(1);
	}

	@Test
	void aDecisionOnACallThatDoesNotWaitIsRefusedAsOnTheDatabase() {
		this.ledger.claim(this.refund);
		this.approvals.approve(this.refund.key(), "ops", "ok");
		ClaimRequest plain = new ClaimRequest(IdempotencyKeys.derive("note", "{}", "r1"), "r1", "rep-1", "note", "{}");
		this.ledger.claim(plain);

		assertThatExceptionOfType(ApprovalRefusedException.class)
			.isThrownBy(() -> this.approvals.reject(this.refund.key(), "ops", "too late"))
			.satisfies((refused) -> assertThat(refused.reason()).isEqualTo(ApprovalRefusedException.Reason.ALREADY_DECIDED));
		assertThatExceptionOfType(ApprovalRefusedException.class)
			.isThrownBy(() -> this.approvals.approve(plain.key(), "ops", "ok"))
			.satisfies((refused) -> assertThat(refused.reason())
				.isEqualTo(ApprovalRefusedException.Reason.NOT_AWAITING_APPROVAL));
		assertThatExceptionOfType(ApprovalRefusedException.class)
			.isThrownBy(() -> this.approvals.approve(IdempotencyKeys.derive("refund", "{}", "r9"), "ops", "ok"))
			.satisfies((refused) -> assertThat(refused.reason()).isEqualTo(ApprovalRefusedException.Reason.UNKNOWN_KEY));
		assertThat(row().status()).isEqualTo(LedgerStatus.APPROVED);
	}

	private io.idempotency.ledger.LedgerEntry row() {
		return this.ledger.find(this.refund.key()).orElseThrow();
	}

}
