package io.idempotency.ai;

import java.util.Arrays;
import java.util.List;

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
