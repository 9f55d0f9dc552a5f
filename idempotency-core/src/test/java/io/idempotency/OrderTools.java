package io.idempotency;

import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.key.IdempotencyKey;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Tools whose effects are kept in memory, for the tests of the advice and the reconciler that run without a
 * database: an order placed is one entry, keyed by the reference the call's key derives.
 */
public class OrderTools {

	/** These tools as beans, with {@link EnableIdempotentTools}: the context adds a ledger. */
	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	public static class Enabled {

		@Bean
		OrderTools orderTools() {
			return new OrderTools();
		}

	}

	public record Order(String reference, String item, int quantity) {
	}

	/** A result that cannot be written as JSON: a replay must never pass a stored null off as it. */
	public record Unwritable(String number) {

		@Override
		public String number() {
			throw new IllegalStateException("not printable");
		}

	}

	private final Map<String, Order> orders = new ConcurrentHashMap<>();

	private final AtomicInteger executions = new AtomicInteger();

	private final AtomicInteger reconciliations = new AtomicInteger();

	private volatile Runnable whileExecuting = () -> {
	};

	/** Runs while place_order executes, before its effect: another party acting on a call still running. */
	public void whileExecuting(Runnable hook) {
		this.whileExecuting = hook;
	}

	/** How often a tool body ran. */
	public int executions() {
		return this.executions.get();
	}

	public int orders() {
		return this.orders.size();
	}

	public int reconciliations() {
		return this.reconciliations.get();
	}

	@IdempotentTool(name = "place_order", reconcile = "findOrder")
	public Order placeOrder(String item, int quantity) {
		this.executions.incrementAndGet();
		this.whileExecuting.run();
		String reference = IdempotentInvocation.current().key().externalReference("o");
		Order order = new Order(reference, item, quantity);
		this.orders.put(reference, order);
		return order;
	}

	Reconciliation<Order> findOrder(IdempotencyKey key) {
		this.reconciliations.incrementAndGet();
		Order order = this.orders.get(key.externalReference("o"));
		return (order != null) ? Reconciliation.found(order) : Reconciliation.notFound();
	}

	/** Places the order, then times out: whether it took effect is unknown to the caller. */
	@IdempotentTool(name = "place_order_timing_out", reconcile = "findOrder")
	public Order placeOrderTimingOut(String item, int quantity, boolean takeEffect) throws SocketTimeoutException {
		this.executions.incrementAndGet();
		if (takeEffect) {
			String reference = IdempotentInvocation.current().key().externalReference("o");
			this.orders.put(reference, new Order(reference, item, quantity));
		}
		throw new SocketTimeoutException("Read timed out");
	}

	@IdempotentTool(name = "refuse_order", reconcile = "findOrder")
	public Order refuseOrder(String item) {
		this.executions.incrementAndGet();
		throw new IllegalArgumentException("no such item: " + item);
	}

	@IdempotentTool(name = "order_envelope", reconcile = "findOrder")
	public ToolResult<Order> orderEnvelope(String item, boolean fail) {
		this.executions.incrementAndGet();
		if (fail) {
			throw new IllegalArgumentException("no such item: " + item);
		}
		return ToolResult.of(new Order("o-" + item, item, 1));
	}

	@IdempotentTool(name = "unwritable_order", reconcile = "neverFound")
	public Unwritable unwritableOrder(String item) {
		this.executions.incrementAndGet();
		return new Unwritable(item);
	}

	Reconciliation<Unwritable> neverFound(String item) {
		return Reconciliation.notFound();
	}

	/** Its reconcile method cannot tell, every time. */
	@IdempotentTool(name = "unknowable_order", reconcile = "cannotTell")
	public Order unknowableOrder(String item) throws SocketTimeoutException {
		this.executions.incrementAndGet();
		throw new SocketTimeoutException("Read timed out");
	}

	Reconciliation<Order> cannotTell(String item) {
		this.reconciliations.incrementAndGet();
		throw new IllegalStateException("the order service is down");
	}

}
