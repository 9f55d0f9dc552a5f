package io.idempotency;

import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.key.IdempotencyKey;

/**
 * Tools whose calls can be made to time out, and whose reconcile methods can be made unable to tell: the
 * calls the reconciler hands to a human.
 */
public class RefundTools {

	public record Refund(String accountName, int cents, String reference) {
	}

	private final AtomicInteger executions = new AtomicInteger();

	private final AtomicBoolean timingOut = new AtomicBoolean();

	private final AtomicBoolean bankDown = new AtomicBoolean(true);

	/** How often a tool's body ran (a method: a class-based proxy has no state of its own). */
	public int executions() {
		return this.executions.get();
	}

	/** Whether the tools time out after taking effect. */
	public void timingOut(boolean timingOut) {
		this.timingOut.set(timingOut);
	}

	/** Whether the reconcile methods cannot tell whether a call took effect. */
	public void bankDown(boolean down) {
		this.bankDown.set(down);
	}

	@IdempotentTool(name = "book_refund", reconcile = "findRefund")
	public Refund bookRefund(String accountName, int cents) throws SocketTimeoutException {
		this.executions.incrementAndGet();
		if (this.timingOut.get()) {
			throw new SocketTimeoutException("Read timed out");
		}
		return new Refund(accountName, cents, IdempotentInvocation.current().key().externalReference("rf"));
	}

	Reconciliation<Refund> findRefund(IdempotencyKey key, String accountName, int cents) {
		if (this.bankDown.get()) {
			throw new IllegalStateException("the bank does not answer");
		}
		return Reconciliation.found(new Refund(accountName, cents, key.externalReference("rf")));
	}

	@IdempotentTool(name = "notify_customer", reconcile = "findNotice")
	public void notifyCustomer(String accountName) throws SocketTimeoutException {
		this.executions.incrementAndGet();
		if (this.timingOut.get()) {
			throw new SocketTimeoutException("Read timed out");
		}
	}

	Reconciliation<Void> findNotice(IdempotencyKey key) {
		throw new IllegalStateException("the mail server does not answer");
	}

}
