package io.idempotency.run;

import io.micrometer.context.ThreadLocalAccessor;

/**
 * Carries the bound {@link Run} across threads with Micrometer context propagation. Registered through
 * {@code META-INF/services}; not for direct use.
 */
public final class RunThreadLocalAccessor implements ThreadLocalAccessor<Run> {

	@Override
	public Object key() {
		return RunContext.CONTEXT_KEY;
	}

	@Override
	public Run getValue() {
		return RunContext.get();
	}

	@Override
	public void setValue(Run value) {
		RunContext.set(value);
	}

	@Override
	public void setValue() {
		RunContext.clear();
	}

}
