package io.idempotency.autoconfigure.http;

import java.io.IOException;

import io.idempotency.IdempotentInvocation;

import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Adds {@code Idempotency-Key: <key>} to every request sent from inside an executing idempotent tool, so
 * that an external system that supports the header deduplicates too. A header the caller set is kept.
 */
public class IdempotencyKeyRequestInterceptor implements ClientHttpRequestInterceptor {

	/** The header's name. */
	public static final String HEADER = "Idempotency-Key";

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		if (!request.getHeaders().containsHeader(HEADER)) {
			IdempotentInvocation.find()
				.ifPresent((invocation) -> request.getHeaders().set(HEADER, invocation.key().value()));
		}
		return execution.execute(request, body);
	}

}
