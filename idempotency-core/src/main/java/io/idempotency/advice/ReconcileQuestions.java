package io.idempotency.advice;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.Map;
import java.util.function.Supplier;

import io.idempotency.IdempotentFunction;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.reconcile.ReconcileMethod;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.core.ResolvableType;
import org.springframework.util.ReflectionUtils;

/**
 * How the reconciler's question reaches a tool: a reconcile method on its bean, or a function's. An approval
 * method is asked the same way ({@link ApprovalNeed}).
 */
final class ReconcileQuestions {

	/** The mapper that wrote the stored arguments, and so the one that reads them back. */
	private static final JsonMapper ARGUMENTS = IdempotencyKeys.argumentsMapper();

	private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {
	};

	private ReconcileQuestions() {
	}

	/**
	 * Asks a reconcile method on the tool's bean: each parameter is the stored argument of its name, read as
	 * the parameter's type, or the call's key.
	 */
	static ReconcileMethod.Question method(Supplier<Object> beans, Method reconcile) {
		return (key, arguments) -> {
			Object bean = beans.get();
			// A public method through the proxy (so its own advice applies), anything else on the target itself.
			Object target = bean;
			if (!Modifier.isPublic(reconcile.getModifiers())) {
				Object singleton = AopProxyUtils.getSingletonTarget(target);
				target = (singleton != null) ? singleton : target;
			}
			return (Reconciliation<?>) invoke(reconcile, target, bean.getClass(), key, arguments);
		};
	}

	/**
	 * Invokes a method of a tool's bean that takes, in any order, the call's key and any of the tool's arguments
	 * by name: each parameter is the argument of its name, read as the parameter's type, or the key.
	 */
	static Object invoke(Method method, Object target, Class<?> beanClass, IdempotencyKey key, JsonNode arguments) {
		Parameter[] parameters = method.getParameters();
		Object[] values = new Object[parameters.length];
		for (int i = 0; i < parameters.length; i++) {
			if (parameters[i].getType().equals(IdempotencyKey.class)) {
				values[i] = key;
			}
			else {
				JsonNode value = arguments.get(parameters[i].getName());
				ResolvableType type = ResolvableType.forMethodParameter(method, i, beanClass);
				values[i] = (value == null || value.isNull()) ? null
						: ARGUMENTS.convertValue(value, ARGUMENTS.getTypeFactory().constructType(type.getType()));
			}
		}
		ReflectionUtils.makeAccessible(method);
		try {
			return method.invoke(target, values);
		}
		catch (InvocationTargetException ex) {
			ReflectionUtils.rethrowRuntimeException(ex.getTargetException());
			throw new IllegalStateException(ex.getTargetException());
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Arguments as stored or canonicalised, as the map a function's own questions take. */
	static Map<String, Object> asMap(JsonNode arguments) {
		return ARGUMENTS.convertValue(arguments, MAP);
	}

	/** Arguments as JSON text, read by the mapper that wrote them. */
	static JsonNode read(String arguments) {
		return ARGUMENTS.readTree(arguments);
	}

	/**
	 * Asks a function's reconcile function, with the stored arguments as a map. A function that returns
	 * {@code ToolResult} answers with one: its data is what is stored, as for the function's own result.
	 */
	static ReconcileMethod.Question function(IdempotentFunction.Reconcile<?> reconcile, boolean envelope) {
		return (key, arguments) -> {
			Reconciliation<?> answer = reconcile.reconcile(key, asMap(arguments));
			if (envelope && answer != null && answer.tookEffect() && answer.result() instanceof ToolResult<?> result) {
				return Reconciliation.found(result.data());
			}
			return answer;
		};
	}

}
