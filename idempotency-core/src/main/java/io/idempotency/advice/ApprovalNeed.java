package io.idempotency.advice;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;

import io.idempotency.Approval;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;
import io.idempotency.key.CanonicalCall;
import io.idempotency.key.IdempotencyKey;

import org.springframework.util.ClassUtils;

/**
 * Which calls of a tool need a person's approval before they execute, and why: none (most tools), every call,
 * or those its approval method (an annotated tool's) or approval rule (a function's) says, asked with the call's
 * arguments before its key is claimed. The reason is what the person deciding reads.
 */
final class ApprovalNeed {

	/** A tool whose calls execute without approval. */
	static final ApprovalNeed NONE = new ApprovalNeed(null, false, null, null);

	/**
	 * An approval is bound to the call's key: with some arguments left out of it, a resumed call could execute
	 * with details the person never saw.
	 */
	private static final String KEYED_ON_SOME = "needs approval and keys on some of its arguments (keyArguments or"
			+ " keyExcludes): an approval is given to the call's key, so a call resumed with other details would"
			+ " execute details no one approved. Key on every argument, or need no approval";

	private final String tool;

	/** Whether every call of the tool needs approval. */
	private final boolean always;

	private final Method method;

	private final IdempotentFunction.ApprovalRule rule;

	private ApprovalNeed(String tool, boolean always, Method method, IdempotentFunction.ApprovalRule rule) {
		this.tool = tool;
		this.always = always;
		this.method = method;
		this.rule = rule;
	}

	/** The approval method of an annotated tool, or {@code null}. */
	Method method() {
		return this.method;
	}

	/** Whether some call of the tool may need approval. */
	boolean isNeeded() {
		return this != NONE;
	}

	/**
	 * Why this call needs approval, or {@code null} when it executes without. An approval method or rule that
	 * throws fails the call before anything is claimed.
	 * @param target the tool's bean, for an annotated tool's approval method
	 */
	String reasonFor(Object target, CanonicalCall call) throws Exception {
		if (this.always) {
			return "every call of " + this.tool + " needs a person's approval";
		}
		if (this.method != null) {
			Object answer = ReconcileQuestions.invoke(this.method, target, target.getClass(), call.key(),
					ReconcileQuestions.read(call.arguments()));
			return reasonOf(answer);
		}
		if (this.rule != null) {
			return reasonOf(this.rule.ask(ReconcileQuestions.asMap(ReconcileQuestions.read(call.arguments()))));
		}
		return null;
	}

	private String reasonOf(Object answer) {
		if (answer instanceof Approval approval) {
			return approval.required() ? approval.reason() : null;
		}
		if (Boolean.TRUE.equals(answer)) {
			return "its approval method asks for a person's approval of these arguments";
		}
		if (answer == null) {
			throw new IllegalStateException("The approval " + (this.method != null ? "method " + this.method.getName()
					: "rule") + " answered null: it must answer whether the call needs approval");
		}
		return null;
	}

	/** The approval needed by the calls of an idempotent function, as its builder declared it. */
	static ApprovalNeed of(IdempotentFunction<?> function, List<String> problems) {
		if ((function.requiresApproval() || function.approvalRule() != null) && !function.keyArguments().isAll()) {
			problems.add(KEYED_ON_SOME);
			return NONE;
		}
		if (function.requiresApproval()) {
			return new ApprovalNeed(function.name(), true, null, null);
		}
		return (function.approvalRule() != null) ? new ApprovalNeed(function.name(), false, null, function.approvalRule())
				: NONE;
	}

	/**
	 * The approval needed by the calls of an annotated tool; adds each thing wrong with its declaration to the
	 * problems.
	 */
	static ApprovalNeed of(IdempotentTool annotation, String name, Method tool, Class<?> targetClass,
			List<String> problems) {
		String methodName = annotation.approval().strip();
		if (annotation.requiresApproval() && !methodName.isEmpty()) {
			problems.add("has requiresApproval and an approval method '" + methodName + "': either every call needs"
					+ " approval, or the method says which do. Choose one");
			return NONE;
		}
		if (!annotation.requiresApproval() && methodName.isEmpty()) {
			return NONE;
		}
		if (annotation.keyArguments().length > 0 || annotation.keyExcludes().length > 0) {
			problems.add(KEYED_ON_SOME);
			return NONE;
		}
		if (annotation.requiresApproval()) {
			return new ApprovalNeed(name, true, null, null);
		}
		Method method = approvalMethod(methodName, tool, targetClass, problems);
		return (method != null) ? new ApprovalNeed(name, false, method, null) : NONE;
	}

	private static Method approvalMethod(String name, Method tool, Class<?> targetClass, List<String> problems) {
		List<Method> candidates = Arrays.stream(targetClass.getDeclaredMethods())
			.filter((m) -> m.getName().equals(name) && !m.isBridge() && !m.isSynthetic())
			.toList();
		if (candidates.size() != 1) {
			problems.add("names approval method '" + name + "', but " + ClassUtils.getShortName(targetClass)
					+ " declares " + (candidates.isEmpty() ? "no method of that name" : candidates.size() + " of them")
					+ ": declare exactly one");
			return null;
		}
		Method method = candidates.get(0);
		String where = "has approval method " + name + " which ";
		Class<?> returned = method.getReturnType();
		if (!boolean.class.equals(returned) && !Boolean.class.equals(returned) && !Approval.class.equals(returned)) {
			problems.add(where + "returns " + returned.getSimpleName() + ": it must return boolean (whether the call"
					+ " needs approval) or Approval (whether, and why)");
		}
		if (Modifier.isStatic(method.getModifiers())) {
			problems.add(where + "is static: make it an instance method of the tool's bean");
		}
		List<Parameter> arguments = Arrays.stream(tool.getParameters())
			.filter((p) -> !ToolDescriptor.isContextParameter(p))
			.toList();
		List<String> toolParameters = arguments.stream().map(Parameter::getName).toList();
		for (Parameter parameter : method.getParameters()) {
			if (IdempotencyKey.class.equals(parameter.getType())) {
				continue;
			}
			if (!parameter.isNamePresent()) {
				problems.add(where + "has no parameter names in its class file: compile with -parameters");
				return method;
			}
			if (!toolParameters.contains(parameter.getName())) {
				problems.add(where + "takes '" + parameter.getName() + "', which is not an argument of the tool. It may"
						+ " take the call's IdempotencyKey and any of " + toolParameters);
				continue;
			}
			Class<?> toolType = arguments.get(toolParameters.indexOf(parameter.getName())).getType();
			if (!ClassUtils.isAssignable(parameter.getType(), toolType)) {
				problems.add(where + "takes '" + parameter.getName() + "' as " + parameter.getType().getSimpleName()
						+ ", but the tool takes it as " + toolType.getSimpleName());
			}
		}
		return method;
	}

}
