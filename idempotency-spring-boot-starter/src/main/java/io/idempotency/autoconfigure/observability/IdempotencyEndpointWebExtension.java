package io.idempotency.autoconfigure.observability;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@code /actuator/idempotency} over HTTP: the {@linkplain IdempotencyEndpoint#report() report}, or
 * {@code 503 Service Unavailable} with the reason where the ledger's table did not answer within
 * {@code idempotency.health.timeout} (a lock held by a migration, a {@code VACUUM FULL}, a {@code LOCK TABLE}):
 * the ledger is there, but cannot be read now, and another request may succeed. Over JMX the operation fails with
 * that reason.
 */
@EndpointWebExtension(endpoint = IdempotencyEndpoint.class)
public class IdempotencyEndpointWebExtension {

	private final IdempotencyEndpoint endpoint;

	public IdempotencyEndpointWebExtension(IdempotencyEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * Why the report could not be read now.
	 * @param unavailable {@code ledger_not_answering}
	 * @param message what did not answer, within how long, and what may hold it
	 */
	public record Unavailable(String unavailable, String message) {
	}

	/** The report, or 503 with the reason where the ledger's table did not answer within the timeout. */
	@ReadOperation
	public WebEndpointResponse<Object> report() {
		try {
			return new WebEndpointResponse<>(this.endpoint.report());
		}
		catch (LedgerReads.NotAnswered ex) {
			return new WebEndpointResponse<>(new Unavailable("ledger_not_answering", ex.getMessage()),
					WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
	}

}
