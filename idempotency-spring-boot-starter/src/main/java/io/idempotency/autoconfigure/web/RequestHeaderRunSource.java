package io.idempotency.autoconfigure.web;

import java.security.Principal;
import java.util.Optional;

import io.idempotency.run.Run;
import io.idempotency.run.RunSource;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The run of the HTTP request being served: the value of its {@code Idempotency-Key} header (configurable),
 * for the request's authenticated user if there is one. A client that retries a request after a network
 * failure sends the same header, so the agent's tool calls for the retry are replayed, not executed again.
 */
public class RequestHeaderRunSource implements RunSource {

	private final String header;

	public RequestHeaderRunSource(String header) {
		if (header == null || header.isBlank()) {
			throw new IllegalArgumentException("The run header's name must not be blank");
		}
		this.header = header;
	}

	@Override
	public Optional<Run> currentRun() {
		if (!(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes)) {
			return Optional.empty();
		}
		HttpServletRequest request = attributes.getRequest();
		String runId = request.getHeader(this.header);
		if (runId == null || runId.isBlank()) {
			return Optional.empty();
		}
		Principal user = request.getUserPrincipal();
		return Optional.of(new Run(runId.strip(), (user != null) ? user.getName() : null));
	}

}
