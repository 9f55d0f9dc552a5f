package io.idempotency.ai;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.method.MethodToolCallback;
import org.springframework.util.ReflectionUtils;

/**
 * Lets Spring AI call a {@code @Tool} method of a class that is not public through the bean's proxy, as it
 * calls it on the bean itself. A {@code MethodToolCallback} makes its method accessible only where the method
 * or its object's class is not public; the object of an idempotent tool is the bean's class-based proxy, whose
 * class is public even where the bean's class is package-private, so the callback would call a public method
 * of a package-private class without making it accessible, and fail at the first call
 * ({@code IllegalAccessException}, before anything is claimed or executed). Every callback the library
 * decorates has its method made accessible where the method or its class is not public.
 */
final class ProxiedToolMethods {

	/** The method a {@code MethodToolCallback} calls (its private state: Spring AI 2.0 offers no accessor). */
	private static final Field TOOL_METHOD = toolMethodField();

	private ProxiedToolMethods() {
	}

	/** The callback, its method made accessible where it is a method tool whose method or class is not public. */
	static ToolCallback callable(ToolCallback callback) {
		if (TOOL_METHOD != null && callback instanceof MethodToolCallback
				&& ReflectionUtils.getField(TOOL_METHOD, callback) instanceof Method method) {
			ReflectionUtils.makeAccessible(method);
		}
		return callback;
	}

	private static Field toolMethodField() {
		Field field = ReflectionUtils.findField(MethodToolCallback.class, "toolMethod", Method.class);
		if (field != null) {
			ReflectionUtils.makeAccessible(field);
		}
		return field;
	}

}
