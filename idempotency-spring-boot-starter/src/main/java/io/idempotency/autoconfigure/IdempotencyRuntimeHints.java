package io.idempotency.autoconfigure;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * The starter's settings, bound where reflection is known ahead of time (a native image): the advisor binds
 * {@link IdempotencyProperties} from the environment itself, before any configuration properties bean, so
 * they are registered whether or not that bean is. Listed in {@code META-INF/spring/aot.factories}.
 */
final class IdempotencyRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(IdempotencyProperties.class).registerHints(hints, classLoader);
	}

}
