package io.idempotency.autoconfigure.observability;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationFilter;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Maps the settlement of {@code idempotencycalls} (its write operation) only where the application sets the
 * endpoint's own access, {@code management.endpoint.idempotencycalls.access=unrestricted}. Boot also makes an
 * endpoint unrestricted through settings that are not about it: {@code management.endpoints.access.default},
 * the older {@code management.endpoints.enabled-by-default} and {@code management.endpoint.<id>.enabled}. A
 * settlement decides what a repeat of a call is told, so none of those opens it: without the endpoint's own
 * setting a settlement is not mapped (answered 405), whatever else is set. Boot's own filter still applies, so
 * {@code management.endpoints.access.max-permitted} keeps the endpoint read-only even with it.
 */
final class IdempotencyCallsAccess implements OperationFilter<WebOperation> {

	static final EndpointId ENDPOINT = EndpointId.of("idempotencycalls");

	static final String PROPERTY = "management.endpoint.idempotencycalls.access";

	private final Access access;

	IdempotencyCallsAccess(Environment environment) {
		this.access = Binder.get(environment).bind(PROPERTY, Access.class).orElse(Access.READ_ONLY);
	}

	@Override
	public boolean match(WebOperation operation, EndpointId endpointId, Access defaultAccess) {
		return !ENDPOINT.equals(endpointId) || operation.getType() == OperationType.READ
				|| this.access == Access.UNRESTRICTED;
	}

}
