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
 * endpoint's own access, {@code management.endpoint.idempotencycalls.access=unrestricted}; and likewise the
 * decisions of {@code idempotencyapprovals}, only with {@code management.endpoint.idempotencyapprovals.access}.
 * Boot also makes an endpoint unrestricted through settings that are not about it:
 * {@code management.endpoints.access.default}, the older {@code management.endpoints.enabled-by-default} and
 * {@code management.endpoint.<id>.enabled}. A settlement decides what a repeat of a call is told, and a
 * decision whether a call's effect happens, so none of those opens them: without the endpoint's own setting
 * they are not mapped (answered 405), whatever else is set. Boot's own filter still applies, so
 * {@code management.endpoints.access.max-permitted} keeps an endpoint read-only even with it.
 */
final class IdempotencyCallsAccess implements OperationFilter<WebOperation> {

	static final EndpointId ENDPOINT = EndpointId.of("idempotencycalls");

	static final EndpointId APPROVALS = EndpointId.of("idempotencyapprovals");

	static final String PROPERTY = property(ENDPOINT);

	static final String MAX_PERMITTED = "management.endpoints.access.max-permitted";

	private final EndpointId endpoint;

	private final Access access;

	IdempotencyCallsAccess(Environment environment) {
		this(ENDPOINT, environment);
	}

	/** The write operations of this endpoint, mapped only with its own access setting. */
	IdempotencyCallsAccess(EndpointId endpoint, Environment environment) {
		this.endpoint = endpoint;
		this.access = writeAccess(endpoint, environment);
	}

	/** The property of an endpoint's own access. */
	static String property(EndpointId endpoint) {
		return "management.endpoint." + endpoint + ".access";
	}

	/**
	 * The endpoint's own access ({@code read-only} where it is not set), capped by Boot's
	 * {@code management.endpoints.access.max-permitted}: what the endpoint itself checks before it settles, for a
	 * discoverer that applies no operation filter (Cloud Foundry's).
	 */
	static Access settlementAccess(Environment environment) {
		return writeAccess(ENDPOINT, environment);
	}

	/** The access of an endpoint's write operations: its own setting, capped as {@link #settlementAccess} is. */
	static Access writeAccess(EndpointId endpoint, Environment environment) {
		Binder binder = Binder.get(environment);
		Access own = binder.bind(property(endpoint), Access.class).orElse(Access.READ_ONLY);
		return own.cap(binder.bind(MAX_PERMITTED, Access.class).orElse(Access.UNRESTRICTED));
	}

	@Override
	public boolean match(WebOperation operation, EndpointId endpointId, Access defaultAccess) {
		return !this.endpoint.equals(endpointId) || operation.getType() == OperationType.READ
				|| this.access == Access.UNRESTRICTED;
	}

}
