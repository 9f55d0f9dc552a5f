package io.idempotency.ai;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallScope;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;

import org.springframework.util.ClassUtils;

/**
 * One call of a tool on an asynchronous MCP server, followed onto the threads that run it: the handler's
 * work runs on a scheduler's thread (Spring AI runs a tool callback on {@code boundedElastic}), where the
 * advice tells its answer. The call travels in the Reactor context under {@link #CONTEXT_KEY}; Reactor's
 * automatic context propagation binds it on each thread that runs part of the handler, where it opens an
 * {@link IdempotentCallScope} and marks the thread as answered by the MCP decorator, until the work is done
 * there.
 */
final class McpAsyncCalls {

	/** The Reactor context key of the call being answered. */
	static final String CONTEXT_KEY = "io.idempotency.mcp.call";

	/**
	 * The calls by the run bound for them (that very object): where a server runs the handler's work on a
	 * thread that the run reaches but the call does not, the tool callback finds the call by its run.
	 */
	private static final Map<Run, Call> byRun = Collections.synchronizedMap(new IdentityHashMap<>());

	/** The calls bound on this thread, innermost first, each with what binding it opened. */
	private static final ThreadLocal<Deque<Binding>> bindings = new ThreadLocal<>();

	private static volatile boolean registered;

	private McpAsyncCalls() {
	}

	/**
	 * Registers the call's accessor with Micrometer's context propagation, once, where it is on the class
	 * path; without it, a call's answer is told by its tool callback instead.
	 */
	static void register() {
		if (registered
				|| !ClassUtils.isPresent("io.micrometer.context.ContextRegistry", McpAsyncCalls.class.getClassLoader())) {
			return;
		}
		synchronized (McpAsyncCalls.class) {
			if (!registered) {
				ContextRegistry.getInstance().registerThreadLocalAccessor(new Accessor());
				registered = true;
			}
		}
	}

	/**
	 * Runs the work with the call bound on this thread, as the accessor binds it: a handler subscribed
	 * within it schedules its work with the call among the thread's values, where propagation captures them.
	 */
	static void bound(Call call, Runnable work) {
		bound(call, () -> {
			work.run();
			return null;
		});
	}

	/** Supplies the work's value with the call bound on this thread. */
	static <T> T bound(Call call, Supplier<T> work) {
		push(Binding.enter(call));
		try {
			return work.get();
		}
		finally {
			pop();
		}
	}

	private static void push(Binding binding) {
		Deque<Binding> bound = bindings.get();
		if (bound == null) {
			bound = new ArrayDeque<>();
			bindings.set(bound);
		}
		bound.push(binding);
	}

	/** Undoes the last binding made on this thread, whatever it was: each binding is undone once. */
	private static void pop() {
		Deque<Binding> bound = bindings.get();
		Binding top = (bound != null) ? bound.poll() : null;
		if (top != null) {
			top.exit();
		}
		if (bound != null && bound.isEmpty()) {
			bindings.remove();
		}
	}

	private static Binding top() {
		Deque<Binding> bound = bindings.get();
		return (bound != null) ? bound.peek() : null;
	}

	/** The call bound on this thread, if any. */
	static Optional<Call> current() {
		Binding top = top();
		return Optional.ofNullable((top != null) ? top.call() : null);
	}

	/** Follows the call by the run bound for it, until {@link #unfollow}. */
	static void follow(Run run, Call call) {
		byRun.put(run, call);
	}

	static void unfollow(Run run) {
		byRun.remove(run);
	}

	/** The call of an asynchronous MCP server that the run bound on this thread was bound for, if any. */
	static Optional<Call> ofBoundRun() {
		return RunContext.current().map(byRun::get);
	}

	/** A call whose answer is learned on the threads that run it. */
	static final class Call {

		/** The scopes open for it on the threads running it now. */
		private final List<IdempotentCallScope> open = new CopyOnWriteArrayList<>();

		private volatile IdempotentCall last;

		/** Tells the call how an idempotent call made for it was answered. */
		void told(Optional<IdempotentCall> call) {
			call.ifPresent((answered) -> this.last = answered);
		}

		/** The last idempotent call answered while the call ran, on whichever thread it ran. */
		Optional<IdempotentCall> last() {
			for (IdempotentCallScope scope : this.open) {
				Optional<IdempotentCall> told = scope.last();
				if (told.isPresent()) {
					return told;
				}
			}
			return Optional.ofNullable(this.last);
		}

	}

	/**
	 * A binding made on a thread: a call, with the scope and answering mark it opened there (none where the
	 * call was bound there already), or no call at all, hiding the calls bound below it.
	 */
	private record Binding(Call call, IdempotentCallScope scope, Boolean outerAnswering) {

		static final Binding NONE = new Binding(null, null, null);

		static Binding enter(Call call) {
			Binding top = top();
			if (top != null && top.call() == call) {
				return new Binding(call, null, null);
			}
			Boolean outer = McpAnswering.enter();
			IdempotentCallScope scope = IdempotentCallScope.open();
			call.open.add(scope);
			return new Binding(call, scope, outer);
		}

		void exit() {
			if (this.scope == null) {
				return;
			}
			this.scope.last().ifPresent((told) -> this.call.last = told);
			this.call.open.remove(this.scope);
			this.scope.close();
			McpAnswering.exit(this.outerAnswering);
		}

	}

	/**
	 * Binds the call that the Reactor context carries. Each value set, or cleared (a context without the call,
	 * applied where one is bound), is one binding, and each restore undoes exactly one.
	 */
	private static final class Accessor implements ThreadLocalAccessor<Call> {

		@Override
		public Object key() {
			return CONTEXT_KEY;
		}

		@Override
		public Call getValue() {
			Binding top = top();
			return (top != null) ? top.call() : null;
		}

		@Override
		public void setValue(Call call) {
			push(Binding.enter(call));
		}

		@Override
		public void setValue() {
			push(Binding.NONE);
		}

		@Override
		public void restore(Call previous) {
			pop();
		}

		@Override
		public void restore() {
			pop();
		}

	}

}
