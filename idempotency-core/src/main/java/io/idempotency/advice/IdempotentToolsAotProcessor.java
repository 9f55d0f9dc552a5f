package io.idempotency.advice;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Set;

import io.idempotency.IdempotentTool;
import io.idempotency.key.IdempotencyKey;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.ResolvableType;

/**
 * What the idempotent tools of a bean need at run time where reflection is known ahead of time (a native
 * image): found, as the registry finds them, on each application bean whose class has {@link IdempotentTool}
 * methods. Its class is introspected at start-up (its tools' annotations, and the reconcile method named by
 * each); the tool and reconcile methods are invoked by reflection; and what is written and read as JSON is
 * registered for binding: the tool's arguments (its keys), its result (stored, and read back for a replay),
 * and the reconcile method's arguments (read back from the stored ones) and result. Listed in
 * {@code META-INF/spring/aot.factories}.
 */
final class IdempotentToolsAotProcessor implements BeanRegistrationAotProcessor {

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		if (!IdempotentToolRegistry.mayHoldTools(registeredBean.getMergedBeanDefinition())) {
			return null;
		}
		Class<?> type = registeredBean.getBeanClass();
		Set<Method> tools = IdempotentToolRegistry.toolMethods(type);
		if (tools.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> registerHints(generationContext.getRuntimeHints().reflection(), type, tools);
	}

	private void registerHints(ReflectionHints reflection, Class<?> type, Set<Method> tools) {
		reflection.registerType(type);
		Set<Class<?>> bound = new LinkedHashSet<>();
		for (Method method : tools) {
			reflection.registerMethod(method, ExecutableMode.INVOKE);
			boundTypes(ResolvableType.forMethodReturnType(method, type), bound);
			for (int i = 0; i < method.getParameterCount(); i++) {
				if (!ToolDescriptor.isContextParameter(method.getParameters()[i])) {
					boundTypes(ResolvableType.forMethodParameter(method, i, type), bound);
				}
			}
			// Described as at start-up, so that the reconcile and approval methods are the ones that will be asked.
			ToolDescriptor described = ToolDescriptor.describe(method, type, new ArrayList<>());
			Method approval = described.approval().method();
			if (approval != null) {
				reflection.registerMethod(approval, ExecutableMode.INVOKE);
			}
			Method reconcile = described.reconcile();
			if (reconcile != null) {
				reflection.registerMethod(reconcile, ExecutableMode.INVOKE);
				boundTypes(ResolvableType.forMethodReturnType(reconcile, type).getGeneric(0), bound);
				Parameter[] parameters = reconcile.getParameters();
				for (int i = 0; i < parameters.length; i++) {
					if (!IdempotencyKey.class.equals(parameters[i].getType())) {
						boundTypes(ResolvableType.forMethodParameter(reconcile, i, type), bound);
					}
				}
			}
		}
		this.bindings.registerReflectionHints(reflection, bound.toArray(Class<?>[]::new));
	}

	/** A type and the types of its generics, resolved as far as the bean's class tells. */
	private static void boundTypes(ResolvableType type, Set<Class<?>> bound) {
		Class<?> resolved = type.resolve();
		if (resolved == null) {
			return;
		}
		bound.add(resolved);
		for (ResolvableType generic : type.getGenerics()) {
			boundTypes(generic, bound);
		}
		if (type.isArray()) {
			boundTypes(type.getComponentType(), bound);
		}
	}

}
