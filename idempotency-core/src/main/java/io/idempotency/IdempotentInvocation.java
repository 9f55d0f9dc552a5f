package io.idempotency;

import java.util.Optional;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.run.Run;

/**
 * The idempotent call executing on this thread, for the tool's own body: its key, to pass to an external
 * system ({@code Idempotency-Key} header) or to derive a reference from
 * ({@link IdempotencyKey#externalReference(String)}).
 *
 * <p>There is one only where the call was claimed: a tool body runs without one where idempotency is switched
 * off ({@code idempotency.enabled=false}: the tool runs as if not annotated) and where a call outside any run
 * is executed without deduplication ({@link MissingRunPolicy#EXECUTE_WITHOUT_DEDUPLICATION}). No key exists
 * there, since nothing deduplicates the call or reconciles it later: a tool that must run in those cases too
 * reads {@link #find()}, and makes a reference of its own where it is empty.
 *
 * @param tool the tool's name
 * @param key the call's idempotency key
 * @param run the run the call belongs to
 */
public record IdempotentInvocation(String tool, IdempotencyKey key, Run run) {

	private static final ThreadLocal<IdempotentInvocation> current = new ThreadLocal<>();

	/**
	 * The call executing on this thread.
	 * @throws IllegalStateException outside the body of a claimed {@link IdempotentTool} call: elsewhere, with
	 * idempotency switched off, or for a call executed without a run (see {@link #find()})
	 */
	public static IdempotentInvocation current() {
		return find().orElseThrow(() -> new IllegalStateException(
				"No idempotent tool is executing on this thread: IdempotentInvocation.current() is available in the"
						+ " body of an @IdempotentTool call the advice claimed, on the thread that called it. A tool"
						+ " that also runs with idempotency switched off, or executed without a run, reads"
						+ " IdempotentInvocation.find(), which is empty there"));
	}

	/**
	 * The call executing on this thread, if any: empty outside a claimed call's body, so with idempotency
	 * switched off and for a call executed without a run too.
	 */
	public static Optional<IdempotentInvocation> find() {
		return Optional.ofNullable(current.get());
	}

	/**
	 * Makes this the invocation of the current thread while its tool executes, returning the one it
	 * replaces: the advice's, around the tool body. Applications read it with {@link #current()}.
	 */
	public static IdempotentInvocation enter(IdempotentInvocation invocation) {
		IdempotentInvocation outer = current.get();
		current.set(invocation);
		return outer;
	}

	/** Restores the invocation {@link #enter} replaced: the advice's, when the tool body returns. */
	public static void exit(IdempotentInvocation outer) {
		if (outer != null) {
			current.set(outer);
		}
		else {
			current.remove();
		}
	}

}
