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

	static final String MAX_PERMITTED = "management.endpoints.access.max-permitted";

	private final Access access;

	IdempotencyCallsAccess(Environment environment) {
		this.access = settlementAccess(environment);
	}

	/**
	 * The endpoint's own access ({@code read-only} where it is not set), capped by Boot's
	 * {@code management.endpoints.access.max-permitted}: what the endpoint itself checks before it settles, for a
	 * discoverer that applies no operation filter (Cloud Foundry's).
	 */
	static Access settlementAccess(Environment environment) {
		Binder binder = Binder.get(environment);
		Access own = binder.bind(PROPERTY, Access.class).orElse(Access.READ_ONLY);
		return own.cap(binder.bind(MAX_PERMITTED, Access.class).orElse(Access.UNRESTRICTED));
	}

	@Override
	public boolean match(WebOperation operation, EndpointId endpointId, Access defaultAccess) {
		return !ENDPOINT.equals(endpointId) || operation.getType() == OperationType.READ
				|| this.access == Access.UNRESTRICTED;
	}

}
