package io.idempotency.autoconfigure.ai;

import java.security.Principal;
import java.util.function.Supplier;

import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The authenticated user of the servlet request being served, or {@code null}: the user of an MCP call's
 * {@code _meta} run. Spring AI's synchronous MCP servers run a servlet request's tool calls on the request's
 * own thread, so the request is there to ask.
 */
final class AuthenticatedCaller implements Supplier<String> {

	static final String[] REQUIRED_CLASSES = { "org.springframework.web.context.request.ServletRequestAttributes",
			"jakarta.servlet.http.HttpServletRequest" };

	@Override
	public String get() {
		if (!(RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes)) {
			return null;
		}
		Principal user = attributes.getRequest().getUserPrincipal();
		return (user != null && user.getName() != null && !user.getName().isBlank()) ? user.getName() : null;
	}

}
