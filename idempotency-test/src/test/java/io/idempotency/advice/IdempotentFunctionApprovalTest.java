package io.idempotency.advice;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.Answer;
import io.idempotency.Approval;
import io.idempotency.AwaitingApprovalException;
import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallListener;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.NotApprovedException;
import io.idempotency.OrderTools;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.reconcile.Approvals;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.test.InMemoryLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Idempotent functions that need a person's approval, through the real advice on the {@link InMemoryLedger}: the
 * first call waits and runs nothing, and so does every repeat; once approved the same call runs once, and is
 * replayed after; once rejected it is refused with the person's reason. Synchronous and asynchronous calls alike.
 */
class IdempotentFunctionApprovalTest {

	private final InMemoryLedger ledger = new InMemoryLedger();

	private final Approvals approvals = new Approvals(this.ledger.approvals(), Duration.ofHours(1), (event) -> {
	});

	private final List<IdempotentCall> told = new CopyOnWriteArrayList<>();

	private final AtomicInteger refunded = new AtomicInteger();

	private final IdempotentFunction<String> refund = IdempotentFunction.builder("refund", String.class)
		.reconcile((key, arguments) -> Reconciliation.notFound())
		.requiresApproval()
		.build();

	private final IdempotentFunction<String> discount = IdempotentFunction.builder("discount", String.class)
		.reconcile((key, arguments) -> Reconciliation.notFound())
		.approval((arguments) -> new BigDecimal(arguments.get("percent").toString()).compareTo(BigDecimal.TEN) > 0
				? Approval.required("a discount over 10%") : Approval.notRequired())
		.build();

	private final Executor recording = Runnable::run;

	private AnnotationConfigApplicationContext context;

	private IdempotentCalls calls;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.registerBean(IdempotentCallListener.class, () -> this.told::add);
		this.context.register(OrderTools.Enabled.class);
		this.context.refresh();
		this.calls = this.context.getBean(IdempotentCalls.class);
		this.calls.register(this.refund);
		this.calls.register(this.discount);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	private String refund() {
		return RunContext.supply(new Run("r1", "rep-1"), () -> this.calls.call(this.refund, "{\"order\":\"O-1\"}",
				() -> "refund " + this.refunded.incrementAndGet()));
	}

	private String refundAsync() {
		return RunContext.supply(new Run("r1", "rep-1"), () -> this.calls.callAsync(this.refund, Map.of("order", "O-1"),
				() -> CompletableFuture.completedFuture("refund " + this.refunded.incrementAndGet()), this.recording))
			.toCompletableFuture()
			.orTimeout(30, TimeUnit.SECONDS)
			.join();
	}

	@Test
	void aFunctionThatRequiresApprovalWaitsThenRunsOnceApprovedAndIsReplayed() {
		assertThatExceptionOfType(AwaitingApprovalException.class).isThrownBy(this::refund)
			.withMessageContaining("a person must approve this action");
		assertThatExceptionOfType(AwaitingApprovalException.class).isThrownBy(this::refund);
		assertThat(this.refunded).hasValue(0);

		this.approvals.approve(waiting(), "ops", "ok");

		assertThat(refund()).isEqualTo("refund 1");
		assertThat(refund()).isEqualTo("refund 1");
		assertThat(this.refunded).hasValue(1);
		assertThat(this.told).extracting(IdempotentCall::answer)
			.containsExactly(Answer.AWAITING_APPROVAL, Answer.AWAITING_APPROVAL, Answer.EXECUTED, Answer.REPLAYED);
		assertThat(this.ledger.entries()).singleElement()
			.satisfies((row) -> assertThat(row.status()).isEqualTo(LedgerStatus.SUCCEEDED));
	}

	@Test
	void aRejectedFunctionCallIsRefusedWithThePersonsReason() {
		assertThatExceptionOfType(AwaitingApprovalException.class).isThrownBy(this::refund);

		this.approvals.reject(waiting(), "ops", "refunded by cheque already");

		assertThatExceptionOfType(NotApprovedException.class).isThrownBy(this::refund)
			.withMessageContaining("refunded by cheque already");
		assertThat(this.refunded).hasValue(0);
		assertThat(this.told).extracting(IdempotentCall::answer)
			.containsExactly(Answer.AWAITING_APPROVAL, Answer.REFUSED_NOT_APPROVED);
	}

	@Test
	void anAsynchronousCallWaitsAndRunsOnceApproved() {
		assertThatExceptionOfType(CompletionException.class).isThrownBy(this::refundAsync)
			.withCauseInstanceOf(AwaitingApprovalException.class);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(this::refundAsync)
			.withCauseInstanceOf(AwaitingApprovalException.class);
		assertThat(this.refunded).hasValue(0);

		this.approvals.approve(waiting(), "ops", "ok");

		assertThat(refundAsync()).isEqualTo("refund 1");
		assertThat(refundAsync()).isEqualTo("refund 1");
		assertThat(this.refunded).hasValue(1);
	}

	@Test
	void aFunctionsRuleAsksForApprovalOnlyOfTheCallsItSaysNeedIt() {
		AtomicInteger discounted = new AtomicInteger();
		String small = RunContext.supply(new Run("r1", "rep-1"), () -> this.calls.call(this.discount,
				"{\"percent\":5}", () -> "discount " + discounted.incrementAndGet()));
		assertThatExceptionOfType(AwaitingApprovalException.class)
			.isThrownBy(() -> RunContext.supply(new Run("r1", "rep-1"), () -> this.calls.call(this.discount,
					"{\"percent\":25}", () -> "discount " + discounted.incrementAndGet())))
			.satisfies((awaiting) -> assertThat(awaiting.reason()).isEqualTo("a discount over 10%"));

		assertThat(small).isEqualTo("discount 1");
		assertThat(discounted).hasValue(1);
		assertThat(this.approvals.awaiting("discount", 0, 10)).singleElement()
			.satisfies((request) -> assertThat(request.reason()).isEqualTo("a discount over 10%"));
	}

	private IdempotencyKey waiting() {
		return this.approvals.awaiting(null, 0, 10).get(0).entry().key();
	}

}
