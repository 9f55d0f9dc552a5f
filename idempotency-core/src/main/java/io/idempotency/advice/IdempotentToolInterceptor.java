package io.idempotency.advice;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;

/**
 * The advice around an {@link io.idempotency.IdempotentTool} method: finds the tool the invoked method is,
 * and hands its call to the {@link CallFlow}. Its logger is the one the flow's events are logged under.
 */
final class IdempotentToolInterceptor implements MethodInterceptor {

	/** The logger of the advice's events: a call refused or executed without a run, an outcome left unknown. */
	static final Logger LOGGER = LoggerFactory.getLogger(IdempotentToolInterceptor.class);

	private final CallFlow calls;

	private final Map<MethodClassKey, ToolDescriptor> tools = new ConcurrentHashMap<>();

	IdempotentToolInterceptor(CallFlow calls) {
		this.calls = calls;
	}

	/** The flow every call of a tool or function goes through. */
	CallFlow calls() {
		return this.calls;
	}

	/** The tool of an invoked method, parsed on its first call and cached: the hot path only looks it up. */
	ToolDescriptor describe(Method method, Class<?> targetClass) {
		return this.tools.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> {
			Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
			List<String> problems = new ArrayList<>();
			ToolDescriptor tool = ToolDescriptor.describe(specific, targetClass, problems);
			if (!problems.isEmpty()) {
				throw new IllegalStateException(String.join("\n", problems));
			}
			return tool;
		});
	}

	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		ToolDescriptor tool = describe(invocation.getMethod(), AopUtils.getTargetClass(invocation.getThis()));
		return this.calls.call(tool, new ToolCall.Invoked(tool, invocation));
	}

}
