package io.idempotency.advice;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * Finds the reconcile method an annotated tool names, and checks at start-up that the reconciler can ask it:
 * it returns {@link Reconciliation} of the tool's result, is an instance method, and takes only the call's key
 * and stored arguments of the tool's.
 */
final class ReconcileMethodCheck {

	private ReconcileMethodCheck() {
	}

	static Method find(String reconcileName, Method tool, Class<?> targetClass,
			ResolvableType dataType, Set<String> sensitive, List<String> problems) {
		if (reconcileName.isBlank()) {
			problems.add("has no reconcile method. Every idempotent tool must answer \"did this happen?\" for a call"
					+ " whose outcome is unknown: name a method with @IdempotentTool(reconcile = \"...\") that returns"
					+ " Reconciliation<T>, or make the tool transactional if its effect is a write to the ledger's"
					+ " database");
			return null;
		}
		List<Method> candidates = Arrays.stream(targetClass.getDeclaredMethods())
			.filter((m) -> m.getName().equals(reconcileName) && !m.isBridge() && !m.isSynthetic())
			.toList();
		if (candidates.size() != 1) {
			problems.add("names reconcile method '" + reconcileName + "', but " + ClassUtils.getShortName(targetClass)
					+ " declares " + (candidates.isEmpty() ? "no method of that name" : candidates.size() + " of them")
					+ ": declare exactly one");
			return null;
		}
		Method reconcile = candidates.get(0);
		String where = "has reconcile method " + reconcileName + " which ";
		ResolvableType returned = ResolvableType.forMethodReturnType(reconcile, targetClass);
		if (!Reconciliation.class.equals(returned.resolve())) {
			problems.add(where + "returns " + returned + ": it must return Reconciliation<" + dataType + ">");
		}
		else {
			Class<?> answered = returned.getGeneric(0).resolve();
			Class<?> produced = dataType.resolve();
			if (answered != null && produced != null && !void.class.equals(produced)
					&& !ClassUtils.resolvePrimitiveIfNecessary(produced)
						.isAssignableFrom(ClassUtils.resolvePrimitiveIfNecessary(answered))) {
				problems.add(where + "returns " + returned + ", but the tool's result is " + dataType);
			}
		}
		if (Modifier.isStatic(reconcile.getModifiers())) {
			problems.add(where + "is static: make it an instance method of the tool's bean");
		}
		List<Parameter> arguments = Arrays.stream(tool.getParameters()).filter((p) -> !ToolDescriptor.isContextParameter(p)).toList();
		List<String> toolParameters = arguments.stream().map(Parameter::getName).toList();
		for (Parameter parameter : reconcile.getParameters()) {
			if (IdempotencyKey.class.equals(parameter.getType())) {
				continue;
			}
			if (ToolDescriptor.isContextParameter(parameter)) {
				problems.add(where + "takes '" + parameter.getName() + "' (" + parameter.getType().getSimpleName()
						+ "), the context of a call, which is never stored, so the method could not be given it. It"
						+ " may take the call's IdempotencyKey and any of " + toolParameters);
				continue;
			}
			if (!parameter.isNamePresent()) {
				problems.add(where + "has no parameter names in its class file: compile with -parameters");
				return reconcile;
			}
			if (!toolParameters.contains(parameter.getName())) {
				problems.add(where + "takes '" + parameter.getName() + "', which is not a parameter of the tool. It may"
						+ " take the call's IdempotencyKey and any of " + toolParameters);
			}
			else if (sensitive.contains(parameter.getName())) {
				problems.add(where + "takes '" + parameter.getName() + "', which is sensitive and so never stored");
			}
			else {
				Class<?> toolType = arguments.get(toolParameters.indexOf(parameter.getName())).getType();
				if (!ClassUtils.isAssignable(parameter.getType(), toolType)) {
					problems.add(where + "takes '" + parameter.getName() + "' as " + parameter.getType().getSimpleName()
							+ ", but the tool takes it as " + toolType.getSimpleName());
				}
			}
		}
		return reconcile;
	}

}
