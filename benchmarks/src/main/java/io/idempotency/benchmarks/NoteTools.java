package io.idempotency.benchmarks;

import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;

/** Tools that do nothing but answer a small record: what is measured is the library around them. */
public class NoteTools {

	public record Note(String account, int quantity) {
	}

	private final AtomicLong executions = new AtomicLong();

	@IdempotentTool(name = "note", reconcile = "findNote")
	public Note note(String account, int quantity) {
		this.executions.incrementAndGet();
		return new Note(account, quantity);
	}

	@IdempotentTool(name = "note_in_transaction", transactional = true)
	public Note noteInTransaction(String account, int quantity) {
		this.executions.incrementAndGet();
		return new Note(account, quantity);
	}

	Reconciliation<Note> findNote(IdempotencyKey key) {
		return Reconciliation.notFound();
	}

	/** How many times a tool's body ran. */
	public long executions() {
		return this.executions.get();
	}

}
