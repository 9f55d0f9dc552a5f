package io.idempotency;

/**
 * Told of every call of an idempotent tool and how it was answered, on the calling thread, after the
 * outcome is recorded. For metrics, logs and framework integrations; a listener that throws is logged and
 * ignored. Beans of this type are picked up by {@code @EnableIdempotentTools} and the starter.
 */
@FunctionalInterface
public interface IdempotentCallListener {

	void onCall(IdempotentCall call);

}
