package io.idempotency.run;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Binds a {@link Run} to the work done for it, so that idempotent tools called anywhere inside find it.
 *
 * <pre>{@code
 * String answer = RunContext.supply(new Run(UUID.randomUUID().toString(), user.id()),
 *         () -> chatClient.prompt(question).call().content());
 * }</pre>
 *
 * <p>The binding is a thread-local, scoped to the call: it is removed (or the outer run restored) when
 * the work returns. Work that moves to other threads (streaming, {@code @Async}, executors) takes it
 * along through Micrometer context propagation, where {@code io.micrometer:context-propagation} is on the
 * class path: this library registers an accessor for it (key {@value #CONTEXT_KEY}), so Reactor's
 * automatic context propagation and {@code ContextSnapshot}-wrapped executors carry the run.
 */
public final class RunContext {

	/** The key of the run in Micrometer's context propagation. */
	public static final String CONTEXT_KEY = "io.idempotency.run";

	private static final ThreadLocal<Run> current = new ThreadLocal<>();

	private RunContext() {
	}

	/** The run bound to this thread, if any. */
	public static Optional<Run> current() {
		return Optional.ofNullable(current.get());
	}

	/** Runs the work with the run bound. */
	public static void run(Run run, Runnable work) {
		supply(run, () -> {
			work.run();
			return null;
		});
	}

	/** Runs the work with the run bound, and returns its result. */
	public static <T> T supply(Run run, Supplier<T> work) {
		Objects.requireNonNull(run, "run");
		Run outer = current.get();
		current.set(run);
		try {
			return work.get();
		}
		finally {
			restore(outer);
		}
	}

	/** Calls the work with the run bound, and returns its result. */
	public static <T> T call(Run run, Callable<T> work) throws Exception {
		Objects.requireNonNull(run, "run");
		Run outer = current.get();
		current.set(run);
		try {
			return work.call();
		}
		finally {
			restore(outer);
		}
	}

	static Run get() {
		return current.get();
	}

	static void set(Run run) {
		current.set(run);
	}

	static void clear() {
		current.remove();
	}

	private static void restore(Run outer) {
		if (outer != null) {
			current.set(outer);
		}
		else {
			current.remove();
		}
	}

}
