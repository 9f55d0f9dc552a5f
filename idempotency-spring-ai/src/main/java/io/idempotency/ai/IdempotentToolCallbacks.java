package io.idempotency.ai;

import java.util.Arrays;
import java.util.List;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;

import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * Tool callbacks that tell the model how each idempotent call was answered ({@link IdempotentToolCallback}),
 * for the paths that do not pass through a decorated {@code ToolCallingManager}: calling a callback directly,
 * or handing callbacks to an MCP server. With the Spring Boot starter, callback and provider beans are
 * decorated already.
 */
public final class IdempotentToolCallbacks {

	private IdempotentToolCallbacks() {
	}

	/** The {@code @Tool} methods of these objects (Spring beans, for their idempotency advice), decorated. */
	public static ToolCallback[] from(Object... toolObjects) {
		return decorate(ToolCallbacks.from(toolObjects));
	}

	/**
	 * Makes any tool callback idempotent, one that is not an annotated bean method among them (a
	 * {@code FunctionToolCallback}, a callback built at run time, a proxy of another service's tools): each
	 * call is an {@link IdempotentFunction} call keyed by the callback's name, the run and its JSON input,
	 * its run found in the tool context or as for annotated tools, and the model is told how it was answered.
	 * The function is registered, so that the reconciler resolves calls whose outcome is unknown.
	 * <pre>{@code
	 * ToolCallback openTicket = FunctionToolCallback.builder("open_ticket", tickets::open)
	 *     .inputType(OpenTicket.class).description("Open a support ticket").build();
	 * return IdempotentToolCallbacks.idempotent(openTicket,
	 *     IdempotentFunction.builder("open_ticket", String.class).reconcile(tickets::reconcileOpen).build(), calls);
	 * }</pre>
	 * @param callback the callback to call at most once per key
	 * @param function its idempotency: named as the callback, with a {@code String} result (the text the
	 * callback returns is what is stored and replayed)
	 * @param calls the application's {@link IdempotentCalls}
	 * @throws IllegalArgumentException if the function's name or result type does not fit the callback
	 * @throws IllegalStateException if the function cannot be registered (another tool has its name, say)
	 */
	public static ToolCallback idempotent(ToolCallback callback, IdempotentFunction<String> function,
			IdempotentCalls calls) {
		return IdempotentToolCallback.of(new IdempotentFunctionCallback(callback, function, calls));
	}

	/** These callbacks, decorated. */
	public static ToolCallback[] decorate(ToolCallback... callbacks) {
		return Arrays.stream(callbacks).map(IdempotentToolCallback::of).toArray(ToolCallback[]::new);
	}

	/** These callbacks, decorated. */
	public static List<ToolCallback> decorate(List<? extends ToolCallback> callbacks) {
		return callbacks.stream().map(IdempotentToolCallback::of).toList();
	}

	/** A provider of the given provider's callbacks, decorated. */
	public static ToolCallbackProvider decorate(ToolCallbackProvider provider) {
		if (provider instanceof DecoratedProvider) {
			return provider;
		}
		return new DecoratedProvider(provider);
	}

	private record DecoratedProvider(ToolCallbackProvider delegate) implements ToolCallbackProvider {

		@Override
		public ToolCallback[] getToolCallbacks() {
			return decorate(this.delegate.getToolCallbacks());
		}

	}

}
