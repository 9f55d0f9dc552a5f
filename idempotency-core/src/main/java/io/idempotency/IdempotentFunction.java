package io.idempotency;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.KeyArguments;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;

/**
 * A tool that is not an annotated bean method, defined in code: its name, the type of its result, and how
 * a call whose outcome is unknown is resolved (a reconcile function) or that it is transactional. It is
 * called through {@link IdempotentCalls}, with the same guarantees as an {@link IdempotentTool} method: the
 * key from its name, the run and the canonicalised arguments, one execution per key, the stored result
 * replayed to a repeat.
 *
 * <pre>{@code
 * IdempotentFunction<Ticket> openTicket = IdempotentFunction.builder("open_ticket", Ticket.class)
 *     .reconcile((key, arguments) -> Reconciliation.of(tickets.findByRequest(key.value())))
 *     .build();
 * }</pre>
 *
 * Declared as a bean, it is registered when the application starts, so that the reconciler knows it;
 * one made later is registered with {@link IdempotentCalls#register}. A function is known by its identity:
 * build each once (a bean, or a field) and call that one; another object of the same name is refused. A
 * function is immutable and safe to share between threads.
 *
 * @param <T> the type of its result
 */
public final class IdempotentFunction<T> {

	private final String name;

	private final ResolvableType resultType;

	private final Reconcile<T> reconcile;

	private final boolean transactional;

	private final Set<String> sensitive;

	private final List<Class<? extends Throwable>> unknownOn;

	private final List<Class<? extends Throwable>> failedOn;

	private final Duration waitForRunning;

	private final KeyArguments keyArguments;

	private final DifferentDetails onDifferentDetails;

	private final boolean requiresApproval;

	private final ApprovalRule approvalRule;

	private IdempotentFunction(Builder<T> builder) {
		this.name = builder.name;
		this.resultType = builder.resultType;
		this.reconcile = builder.reconcile;
		this.transactional = builder.transactional;
		this.sensitive = Set.copyOf(builder.sensitive);
		this.unknownOn = List.copyOf(builder.unknownOn);
		this.failedOn = List.copyOf(builder.failedOn);
		this.waitForRunning = builder.waitForRunning;
		this.keyArguments = builder.keyArguments;
		this.onDifferentDetails = builder.onDifferentDetails;
		this.requiresApproval = builder.requiresApproval;
		this.approvalRule = builder.approvalRule;
	}

	/**
	 * Starts the definition of a function.
	 * @param name its stable name: part of every key, stored with every call, and the name a framework
	 * exposes it under
	 * @param resultType the type of its result, which a replay reads the stored result back as
	 */
	public static <T> Builder<T> builder(String name, Class<T> resultType) {
		return new Builder<>(name, ResolvableType.forClass(Objects.requireNonNull(resultType, "resultType")));
	}

	/**
	 * Starts the definition of a function whose result has a generic type, such as {@code List<Ticket>} or
	 * {@code ToolResult<Ticket>}.
	 */
	public static <T> Builder<T> builder(String name, ParameterizedTypeReference<T> resultType) {
		return new Builder<>(name, ResolvableType.forType(Objects.requireNonNull(resultType, "resultType")));
	}

	/** Its name. */
	public String name() {
		return this.name;
	}

	/** The type of its result. */
	public ResolvableType resultType() {
		return this.resultType;
	}

	/** Its reconcile function; {@code null} for a transactional function. */
	public Reconcile<T> reconcile() {
		return this.reconcile;
	}

	/** Whether its effect is a write to the ledger's database, made in one transaction with the claim. */
	public boolean transactional() {
		return this.transactional;
	}

	/**
	 * The members of its arguments and results that are part of the key but never stored in clear: members of
	 * JSON objects, by name; a result that is text (a tool callback's) is stored as the text it is.
	 */
	public Set<String> sensitive() {
		return this.sensitive;
	}

	/** Exceptions after which its effect may have happened, beyond those the library knows. */
	public List<Class<? extends Throwable>> unknownOn() {
		return this.unknownOn;
	}

	/** Exceptions after which its effect certainly did not happen, ahead of every other rule. */
	public List<Class<? extends Throwable>> failedOn() {
		return this.failedOn;
	}

	/** How long a repeat that finds the call still running waits for its outcome; zero for no wait. */
	public Duration waitForRunning() {
		return this.waitForRunning;
	}

	/** Which arguments make up its key. */
	public KeyArguments keyArguments() {
		return this.keyArguments;
	}

	/** How a repeat whose other arguments differ from the earlier call's is answered. */
	public DifferentDetails onDifferentDetails() {
		return this.onDifferentDetails;
	}

	@Override
	public String toString() {
		return "IdempotentFunction[" + this.name + "]";
	}

	/** Whether every call needs a person's approval before it executes, as {@link IdempotentTool#requiresApproval()}. */
	public boolean requiresApproval() {
		return this.requiresApproval;
	}

	/** What says which calls need a person's approval; {@code null} when none or every call does. */
	public ApprovalRule approvalRule() {
		return this.approvalRule;
	}

	/**
	 * Says whether one call of a function needs a person's approval before it executes, as an annotated tool's
	 * {@link IdempotentTool#approval()} method does. It is asked before the call is claimed; if it throws, the call
	 * fails and nothing is claimed or executed.
	 */
	@FunctionalInterface
	public interface ApprovalRule {

		/**
		 * @param arguments the call's arguments
		 * @return whether the call needs approval, and why; never {@code null}
		 * @throws Exception when it cannot tell: the call fails, and nothing is claimed
		 */
		Approval ask(Map<String, Object> arguments) throws Exception;

	}

	/**
	 * Answers "did this call happen?" for a call of the function whose outcome is unknown, as a reconcile
	 * method does for an annotated tool.
	 *
	 * @param <T> the type of the function's result
	 */
	@FunctionalInterface
	public interface Reconcile<T> {

		/**
		 * @param key the call's key, which the function may have passed to the system it acted on
		 * @param arguments the call's arguments as stored: JSON objects as maps, arrays as lists, whole
		 * numbers as {@code Integer}, {@code Long} or {@code BigInteger}, other numbers as
		 * {@code BigDecimal}; sensitive members are redacted
		 * @return whether the call took effect, with its result if it did
		 * @throws Exception when it cannot tell yet: the call is asked again after a back-off
		 */
		Reconciliation<T> reconcile(IdempotencyKey key, Map<String, Object> arguments) throws Exception;

	}

	/**
	 * Defines a function. It needs either a reconcile function or {@link #transactional()}, as an
	 * annotated tool does.
	 *
	 * @param <T> the type of its result
	 */
	public static final class Builder<T> {

		private final String name;

		private final ResolvableType resultType;

		private Reconcile<T> reconcile;

		private boolean transactional;

		private final Set<String> sensitive = new LinkedHashSet<>();

		private final List<Class<? extends Throwable>> unknownOn = new java.util.ArrayList<>();

		private final List<Class<? extends Throwable>> failedOn = new java.util.ArrayList<>();

		private Duration waitForRunning = Duration.ZERO;

		private KeyArguments keyArguments = KeyArguments.all();

		private DifferentDetails onDifferentDetails = DifferentDetails.REPLAY;

		private boolean requiresApproval;

		private ApprovalRule approvalRule;

		private Builder(String name, ResolvableType resultType) {
			this.name = name;
			this.resultType = resultType;
		}

		/** How a call whose outcome is unknown is resolved: the reconciler asks it "did this happen?". */
		public Builder<T> reconcile(Reconcile<T> reconcile) {
			this.reconcile = Objects.requireNonNull(reconcile, "reconcile");
			return this;
		}

		/**
		 * Makes the function transactional: its effect is a write to the ledger's database, and its claim
		 * commits in one transaction with it, so that no outcome is ever unknown.
		 */
		public Builder<T> transactional() {
			this.transactional = true;
			return this;
		}

		/** Names of members (at any depth) that are part of the key but never stored in clear. */
		public Builder<T> sensitive(String... names) {
			for (String name : Objects.requireNonNull(names, "names")) {
				if (name == null || name.isBlank()) {
					throw new IllegalArgumentException("Function '" + this.name + "': a sensitive name must not be blank");
				}
				this.sensitive.add(name);
			}
			return this;
		}

		/** Exceptions after which the effect may have happened: the call is recorded unknown, for the reconciler. */
		@SafeVarargs
		public final Builder<T> unknownOn(Class<? extends Throwable>... types) {
			if (types == null) {
				throw new NullPointerException("types");
			}
			for (Class<? extends Throwable> type : types) {
				this.unknownOn.add(type);
			}
			return this;
		}

		/** Exceptions after which the effect certainly did not happen: the call is recorded failed. */
		@SafeVarargs
		public final Builder<T> failedOn(Class<? extends Throwable>... types) {
			if (types == null) {
				throw new NullPointerException("types");
			}
			for (Class<? extends Throwable> type : types) {
				this.failedOn.add(type);
			}
			return this;
		}

		/**
		 * How long a repeat that finds the call still running waits for its outcome, as
		 * {@link io.idempotency.IdempotentTool#waitForRunning()}; zero (the default) for no wait.
		 */
		public Builder<T> waitForRunning(Duration bound) {
			Objects.requireNonNull(bound, "bound");
			if (bound.isNegative()) {
				throw new IllegalArgumentException("Function '" + this.name + "': waitForRunning must not be negative,"
						+ " but was " + bound);
			}
			this.waitForRunning = bound;
			return this;
		}

		/**
		 * Only these arguments make up the key, as {@link IdempotentTool#keyArguments()}: names, or dotted paths
		 * of members deeper inside. Every argument is stored.
		 * @throws IllegalArgumentException naming a blank path, or if the key's arguments were chosen already
		 */
		public Builder<T> keyArguments(String... paths) {
			this.keyArguments = chosenOnce(KeyArguments.only(Arrays.asList(Objects.requireNonNull(paths, "paths"))));
			return this;
		}

		/**
		 * Every argument but these makes up the key, as {@link IdempotentTool#keyExcludes()}.
		 * @throws IllegalArgumentException naming a blank path, or if the key's arguments were chosen already
		 */
		public Builder<T> keyExcludes(String... paths) {
			this.keyArguments = chosenOnce(KeyArguments.excluding(Arrays.asList(Objects.requireNonNull(paths, "paths"))));
			return this;
		}

		/** How a repeat whose other arguments differ is answered, as {@link IdempotentTool#onDifferentDetails()}. */
		public Builder<T> onDifferentDetails(DifferentDetails answer) {
			this.onDifferentDetails = Objects.requireNonNull(answer, "answer");
			return this;
		}

		/** Every call needs a person's approval before it executes, as {@link IdempotentTool#requiresApproval()}. */
		public Builder<T> requiresApproval() {
			this.requiresApproval = true;
			return this;
		}

		/**
		 * The calls this rule says need a person's approval do, before they execute, as an annotated tool's
		 * {@link IdempotentTool#approval()} method says.
		 */
		public Builder<T> approval(ApprovalRule rule) {
			this.approvalRule = Objects.requireNonNull(rule, "rule");
			return this;
		}

		private KeyArguments chosenOnce(KeyArguments chosen) {
			if (!this.keyArguments.isAll()) {
				throw new IllegalArgumentException("Function '" + this.name + "': its key's arguments are chosen once,"
						+ " with keyArguments or keyExcludes, not both and not twice");
			}
			return chosen;
		}

		/**
		 * The function.
		 * @throws IllegalArgumentException naming what is wrong: a blank name, or neither or both of a reconcile
		 * function and {@code transactional()}. What depends on the application (a name the ledger cannot
		 * store or another tool has, a result that completes later, a transactional function where
		 * transactional tools cannot run) is checked when the function is registered
		 */
		public IdempotentFunction<T> build() {
			List<String> problems = new java.util.ArrayList<>();
			if (this.name == null || this.name.isBlank()) {
				throw new IllegalArgumentException("An idempotent function's name must not be blank, but was "
						+ ((this.name == null) ? "null" : "'" + this.name + "'"));
			}
			if (this.reconcile == null && !this.transactional) {
				problems.add("has no reconcile function. Every idempotent tool must answer \"did this happen?\" for a"
						+ " call whose outcome is unknown: give it one with reconcile(...), or make it transactional() if"
						+ " its effect is a write to the ledger's database");
			}
			if (this.reconcile != null && this.transactional) {
				problems.add("has a reconcile function and is transactional: a transactional call's outcome is never"
						+ " unknown, so it has nothing to reconcile. Choose one");
			}
			if (this.requiresApproval && this.approvalRule != null) {
				problems.add("has requiresApproval() and an approval rule: either every call needs approval, or the rule"
						+ " says which do. Choose one");
			}
			if (!problems.isEmpty()) {
				throw new IllegalArgumentException("Function '" + this.name + "' " + String.join("; ", problems));
			}
			return new IdempotentFunction<>(this);
		}

	}

}
