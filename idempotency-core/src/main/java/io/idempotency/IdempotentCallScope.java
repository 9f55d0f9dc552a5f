package io.idempotency;

import java.util.Optional;

/**
 * Tells the code that calls a tool how that very call was answered: executed, replayed, refused. A
 * framework that turns a tool's result into the text a model reads (a tool callback, an MCP server) opens
 * a scope around the call and reads {@link #last()} before it closes it, so that the answer travels with
 * the call itself, on the thread that made it, and never beside it.
 *
 * <pre>
 * try (IdempotentCallScope scope = IdempotentCallScope.open()) {
 *     String text = callTheTool();
 *     boolean replayed = scope.last().map((call) -&gt; call.answer() == Answer.REPLAYED).orElse(false);
 * }
 * </pre>
 *
 * A call refused before it reached the idempotency advice (its arguments could not be bound, say) leaves
 * the scope empty. Scopes nest: a call is told to every scope open on its thread, so that an application's
 * scope learns how a call was answered even when a framework's own scope sits inside it (a decorated tool
 * callback opens one); the last call told to a scope is the outermost one made in it, since an executed
 * call is told after the calls it made.
 */
public final class IdempotentCallScope implements AutoCloseable {

	private static final ThreadLocal<IdempotentCallScope> current = new ThreadLocal<>();

	private final IdempotentCallScope outer;

	private final Thread thread;

	private volatile IdempotentCall last;

	private IdempotentCallScope(IdempotentCallScope outer) {
		this.outer = outer;
		this.thread = Thread.currentThread();
	}

	/** Opens a scope on this thread; close it on the same thread. */
	public static IdempotentCallScope open() {
		IdempotentCallScope scope = new IdempotentCallScope(current.get());
		current.set(scope);
		return scope;
	}

	/** The last idempotent call answered in this scope, if any reached the advice. */
	public Optional<IdempotentCall> last() {
		return Optional.ofNullable(this.last);
	}

	@Override
	public void close() {
		if (Thread.currentThread() != this.thread) {
			throw new IllegalStateException("An IdempotentCallScope is closed on the thread that opened it");
		}
		if (this.outer != null) {
			current.set(this.outer);
		}
		else {
			current.remove();
		}
	}

	/** Whether a scope is open on this thread. */
	public static boolean isOpen() {
		return current.get() != null;
	}

	/** Tells every scope open on this thread a call's answer: the advice's, as each call is answered. */
	public static void tell(IdempotentCall call) {
		for (IdempotentCallScope scope = current.get(); scope != null; scope = scope.outer) {
			scope.last = call;
		}
	}

}
