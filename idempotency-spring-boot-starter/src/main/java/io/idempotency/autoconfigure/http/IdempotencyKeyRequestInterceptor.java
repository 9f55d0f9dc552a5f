package io.idempotency.autoconfigure.http;

import java.io.IOException;

import io.idempotency.IdempotentInvocation;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Adds an {@code Idempotency-Key} header to every request sent from inside an executing idempotent tool, so
 * that an external system that supports the header deduplicates too. The value is derived from the call's
 * key and the request ({@link io.idempotency.key.IdempotencyKey#forRequest}): a retry of the same request
 * carries the same value, and two different requests of one call carry two. A header the caller set is
 * kept.
 */
public class IdempotencyKeyRequestInterceptor implements ClientHttpRequestInterceptor {

	/** The header's name. */
	public static final String HEADER = "Idempotency-Key";

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		if (!request.getHeaders().containsHeader(HEADER)) {
			IdempotentInvocation.find()
				.ifPresent((invocation) -> request.getHeaders()
					.set(HEADER, invocation.key().forRequest(request.getMethod().name(), request.getURI(), body)));
		}
		return execution.execute(request, body);
	}

}
