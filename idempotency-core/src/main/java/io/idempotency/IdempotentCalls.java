package io.idempotency;

import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Calls {@link IdempotentFunction}s: tools that are not annotated bean methods (a Spring AI
 * {@code ToolCallback} built at run time, an MCP tool written by hand, a step of an application's own agent
 * loop) with the guarantees of an {@link IdempotentTool} method. The run is found as for annotated tools
 * (the tool context given, else {@code RunContext}, else the application's run sources), and a call outside
 * any run follows the missing-run policy. The first call of a key runs the body and records its outcome; a
 * repeat returns the stored result without running it, and is refused as an annotated tool's repeat is
 * (previous failure, in progress, another user).
 *
 * <p>A bean of the application (with {@link EnableIdempotentTools} or the Spring Boot starter). Functions
 * declared as beans are registered at start-up; call {@link #register} for one made later, before its
 * first call.
 */
public interface IdempotentCalls {

	/**
	 * Calls the function with arguments given as values by name (records and beans become JSON objects of
	 * their properties, as for an annotated tool's parameters).
	 * @param function a registered function
	 * @param arguments name to value: the key is derived from them
	 * @param body the function's work, run at most once per key; its exceptions reach the caller unchanged
	 * @return the body's result, or the stored result of the call that ran it
	 * @throws IllegalStateException if the function is not registered
	 * @throws io.idempotency.key.InvalidArgumentsException if the arguments cannot be keyed or stored (nothing
	 * runs)
	 */
	<T> T call(IdempotentFunction<T> function, Map<String, ?> arguments, Supplier<? extends T> body);

	/**
	 * Calls the function with arguments given as the JSON object a model sends: numbers keep the exact value
	 * of their text.
	 * @see #call(IdempotentFunction, Map, Supplier)
	 */
	<T> T call(IdempotentFunction<T> function, String argumentsJson, Supplier<? extends T> body);

	/**
	 * Calls the function with arguments given as JSON, in a framework's tool context (a map that may name
	 * the run and user under the configured keys, as Spring AI's {@code ToolContext} does).
	 * @see #call(IdempotentFunction, Map, Supplier)
	 */
	<T> T call(IdempotentFunction<T> function, String argumentsJson, Map<String, ?> toolContext,
			Supplier<? extends T> body);

	/**
	 * Calls the function with a body that completes later (an asynchronous tool's, whose work runs on other
	 * threads), and holds no thread while it runs. The run is found, the key derived and claimed, and a repeat
	 * answered from the ledger, on this thread, which must be one where blocking I/O is allowed (the ledger
	 * writes through JDBC). The first call of a key runs the body here: it starts the work and returns its stage.
	 * Once that completes, the outcome is recorded on {@code recording} (an executor whose threads may block),
	 * and the returned stage completes after that, with the body's result or failure. Cancelling the returned
	 * stage stops neither the work nor the recording of its outcome; a body whose own stage is cancelled is
	 * recorded unknown, for the reconciler, since its work may have taken effect. The body of a transactional
	 * function runs in the claim's transaction, whose thread (this one) waits for its stage: its writes must be
	 * made on this thread.
	 * @param function a registered function
	 * @param arguments name to value: the key is derived from them
	 * @param body the function's work, started at most once per key
	 * @param recording where the outcome is recorded once the body's stage completes
	 * @return the body's result once its outcome is recorded, or the stored result of the call that ran it; it
	 * completes exceptionally with what {@link #call(IdempotentFunction, Map, Supplier)} would throw (the body's
	 * failure, a repeat refused, arguments that cannot be keyed)
	 * @throws IllegalStateException if the function is not registered
	 */
	<T> CompletionStage<T> callAsync(IdempotentFunction<T> function, Map<String, ?> arguments,
			Supplier<? extends CompletionStage<? extends T>> body, Executor recording);

	/**
	 * Registers a function, so that its calls are accepted and the reconciler resolves those whose outcome
	 * is unknown. Registering the same function again does nothing.
	 * @throws IllegalStateException if another tool or function has its name, or it is transactional and
	 * transactional tools cannot run in this application (the message says why)
	 */
	void register(IdempotentFunction<?> function);

}
