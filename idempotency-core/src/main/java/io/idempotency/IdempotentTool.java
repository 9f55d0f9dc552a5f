package io.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a tool method of a Spring bean act once per intent: the first call with given arguments in a run
 * executes; every repeat in that run (a retry, the model calling again, with the arguments in any order)
 * is answered from the ledger without executing.
 *
 * <pre>{@code
 * @Tool(name = "open_ticket", description = "Open a support ticket")
 * @IdempotentTool(reconcile = "findTicket")
 * public Ticket openTicket(String accountName, String issue, ToolContext context) {
 *     String reference = IdempotentInvocation.find()   // empty with idempotency switched off
 *         .map((call) -> call.key().externalReference("atlas"))
 *         .orElseGet(() -> "atlas-" + UUID.randomUUID());
 *     return tickets.create(accountName, issue, reference);
 * }
 *
 * Reconciliation<Ticket> findTicket(IdempotencyKey key) {
 *     return Reconciliation.of(tickets.findByReference(key.externalReference("atlas")));
 * }
 * }</pre>
 *
 * <h2>How a call is answered</h2>
 * The first call executes, and its result is stored. A repeat gets the stored result; a tool that returns
 * a {@link ToolResult} gets it marked as replayed, with a message for the model. A repeat of a call that
 * failed gets a {@link PreviousAttemptFailedException} (or a {@code ToolResult} of that kind); a repeat of
 * a call still running, or whose outcome is unknown, gets a {@link ToolCallInProgressException} (or a
 * {@code ToolResult} of that kind): not a failure, and not to be retried.
 *
 * <h2>Reconcile: did it happen?</h2>
 * A call can end without telling whether it took effect: a timeout, a lost connection, a crash. Every
 * idempotent tool therefore names a {@link #reconcile()} method that answers "did this happen?" for a key,
 * or is {@link #transactional()}. An application whose tool has neither fails to start.
 *
 * <h2>Order with other annotations</h2>
 * The advice runs outside {@code @Transactional} and {@code @Retryable}: the claim is committed before the
 * transaction begins and the outcome after it ends, and retries happen within one claim. It runs inside
 * {@code @Async}: the call is claimed on the thread that executes it (with the run carried there by
 * context propagation), and an {@code @Async} tool must return {@code void}. The order among other
 * advisors is configurable ({@code IdempotentToolAdvisor#setOrder}, or {@code idempotency.advisor-order}
 * with the starter).
 *
 * <p>The method must be public or protected and not final (its class may be package-private), on a bean
 * proxied by class (CGLIB, Spring Boot's default), compiled with {@code -parameters}; an application that
 * breaks any of these fails to start with a message naming the tool. Asynchronous return types ({@code CompletableFuture}, reactive
 * types) are not supported and fail the start too.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentTool {

	/**
	 * The tool's stable name, part of every key and stored with every call. Defaults to the name the model
	 * calls the tool by: the name of Spring AI's {@code @Tool} on the method, else of Spring AI's
	 * {@code @McpTool}, else of LangChain4j's {@code @Tool}, else the method's name. Name the tool, on the
	 * framework's annotation or here: renaming a method must not silently change keys. A name here that
	 * differs from the framework's gives the tool two: the model's, and this one in the ledger, its metrics
	 * and the reconciler's settings (worth it only to keep the keys of a tool whose framework name changes).
	 */
	String name() default "";

	/**
	 * The name of a method of the same bean that answers "did this happen?". It returns
	 * {@link Reconciliation}{@code <T>}, {@code T} being the tool's result type, and takes, in any order, the
	 * call's {@link io.idempotency.key.IdempotencyKey} and any of the tool's parameters by name (as stored:
	 * parameters marked {@link #sensitive()} are not available). Required unless {@link #transactional()}.
	 */
	String reconcile() default "";

	/**
	 * Whether the claim, the tool's effect and the outcome commit or roll back together, in one transaction
	 * of the ledger's database. For tools whose effect is a write to that same database: nothing can be half
	 * done, so no reconcile method is needed. Default {@code false}: the claim commits before the tool runs,
	 * which suits tools that call other systems.
	 */
	boolean transactional() default false;

	/**
	 * Exceptions after which the effect may have happened (in addition to the configured defaults: I/O
	 * errors, timeouts, {@code ResourceAccessException}): the call is recorded {@code unknown} and resolved
	 * by the reconciler. Matched on the exception and its causes; checked before {@link #failedOn()}.
	 */
	Class<? extends Throwable>[] unknownOn() default {};

	/**
	 * Exceptions after which the effect definitely did not happen, overriding the configured defaults:
	 * the call is recorded {@code failed}, and a repeat in the same run is not executed again. Any exception
	 * not classified otherwise is a failure too.
	 */
	Class<? extends Throwable>[] failedOn() default {};

	/**
	 * Names of parameters (or members at any depth) whose values are never stored in the ledger, in
	 * addition to the configured sensitive names. The key still covers them.
	 */
	String[] sensitive() default {};

	/**
	 * How long a repeat that finds the call still running (a twin made at the same moment, such as a model's
	 * two identical calls executed in parallel) waits for its outcome before it answers: then it is answered
	 * as a replay of the call's result, or told that it failed, instead of that it is in progress. Past the
	 * bound, or when the outcome is unknown, the answer stays "in progress". The wait polls the ledger, with a
	 * growing pause, and holds no connection or lock while it pauses. A duration as {@code "2s"},
	 * {@code "500ms"}, {@code "1m"} or ISO-8601 ({@code "PT2S"}); empty (the default) for no wait. Not for a
	 * {@link #transactional()} tool, whose repeats wait on the running call's uncommitted claim already.
	 */
	String waitForRunning() default "";

	/**
	 * The arguments that name the action and so make up the key, when not all of them do: parameter names, or
	 * members deeper inside, their names separated by dots ({@code ticket.account}; along the way, an array's
	 * elements are each walked). A model that repeats a call rephrasing a free-text argument left out of the
	 * key repeats the same action. Every argument is stored; a repeat whose other arguments differ is answered
	 * as {@link #onDifferentDetails()} says. Empty (the default): every argument. Not with
	 * {@link #keyExcludes()}. See {@link io.idempotency.key.KeyArguments}.
	 */
	String[] keyArguments() default {};

	/**
	 * The arguments left out of the key, when all the others name the action: paths as for
	 * {@link #keyArguments()}. Not with {@link #keyArguments()}.
	 */
	String[] keyExcludes() default {};

	/**
	 * How a repeat with the key of an earlier call, but other arguments that differ from that call's, is
	 * answered: as a replay that tells which details were not applied (the default), or refused. It is never
	 * executed. Only for a tool with {@link #keyArguments()} or {@link #keyExcludes()}: with every argument in
	 * the key, no repeat differs.
	 */
	DifferentDetails onDifferentDetails() default DifferentDetails.REPLAY;

	/**
	 * Whether every call needs a person's approval before it is carried out. The first call of an action in a
	 * run is claimed as waiting for approval and executes nothing; the model is told that it awaits approval,
	 * and so is every repeat, until a person approves or rejects it ({@code io.idempotency.reconcile.Approvals}).
	 * Once approved, the same call in the same run (the agent resumed, on any instance) executes it, once. Not
	 * with {@link #approval()}.
	 */
	boolean requiresApproval() default false;

	/**
	 * The name of a method of the same bean that says whether a call needs a person's approval, as
	 * {@link #requiresApproval()} describes: for example, a quote over 1,000 units does, a smaller one does not.
	 * It returns {@code boolean}, or {@link Approval} to give the reason the person deciding reads, and takes, in
	 * any order, the call's {@link io.idempotency.key.IdempotencyKey} and any of the tool's parameters by name.
	 * It is asked before the call is claimed; if it throws, the call fails and nothing is claimed or executed.
	 */
	String approval() default "";

}
