package io.idempotency;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.key.IdempotencyKey;

/** Tools that count their executions, for hostile input: each must run exactly when the input is valid. */
public class HostileTools {

	public record Slot(int number, String room) {
	}

	private final AtomicInteger executions = new AtomicInteger();

	public int executions() {
		return this.executions.get();
	}

	@IdempotentTool(name = "store_text", reconcile = "notFound")
	public String storeText(String text) {
		this.executions.incrementAndGet();
		return "stored";
	}

	@IdempotentTool(name = "echo_text", reconcile = "notFound")
	public String echoText(String text) {
		this.executions.incrementAndGet();
		return text;
	}

	/** Answers the text with U+0000 after it, which no ledger stores. */
	@IdempotentTool(name = "text_with_nul", reconcile = "notFound")
	public String textWithNul(String text) {
		this.executions.incrementAndGet();
		return text + "\u0000";
	}

	@IdempotentTool(name = "store_values", reconcile = "notFound")
	public String storeValues(List<Object> values) {
		this.executions.incrementAndGet();
		return "stored";
	}

	@IdempotentTool(name = "store_tree", reconcile = "notFound")
	public String storeTree(Map<String, Object> tree) {
		this.executions.incrementAndGet();
		return "stored";
	}

	@IdempotentTool(name = "store_amount", reconcile = "notFound")
	public String storeAmount(double amount) {
		this.executions.incrementAndGet();
		return "stored";
	}

	@IdempotentTool(name = "book_slot", reconcile = "findSlot")
	public Slot bookSlot(Slot slot) {
		this.executions.incrementAndGet();
		return slot;
	}

	Reconciliation<Slot> findSlot(Slot slot) {
		return Reconciliation.found(slot);
	}

	@IdempotentTool(name = "book_slot_envelope", reconcile = "notFoundSlot")
	public ToolResult<Slot> bookSlotEnvelope(Slot slot) {
		this.executions.incrementAndGet();
		return ToolResult.of(slot);
	}

	Reconciliation<Slot> notFoundSlot(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	Reconciliation<String> notFound(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

}
