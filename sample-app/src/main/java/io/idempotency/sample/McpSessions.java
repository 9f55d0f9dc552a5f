package io.idempotency.sample;

import java.time.Duration;

import io.modelcontextprotocol.spec.McpServerTransportProviderBase;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

/**
 * Closes the MCP server's sessions when the application closes, before the web server's graceful shutdown. A
 * connected client holds a listening stream ({@code GET /mcp}) open for as long as its session lasts; left open,
 * that request keeps the graceful shutdown waiting for its whole timeout ({@code
 * spring.lifecycle.timeout-per-shutdown-phase}, 30 s). Spring AI's server closes its sessions only when its beans
 * are destroyed, after that wait. Closed first, the streams end, and the graceful shutdown waits only for the
 * calls still in progress; a client that comes back meanwhile is told the server is shutting down.
 * <p>
 * It acts on the context's {@link ContextClosedEvent}, which comes before any lifecycle stops, and not on a stop
 * of its own: a context only stopped (a test framework pauses the contexts it caches) starts again, and a
 * transport closed once stays closed.
 */
@Component
class McpSessions implements ApplicationListener<ContextClosedEvent> {

	private static final Duration CLOSING = Duration.ofSeconds(5);

	private final ObjectProvider<McpServerTransportProviderBase> transports;

	private final ApplicationContext context;

	McpSessions(ObjectProvider<McpServerTransportProviderBase> transports, ApplicationContext context) {
		this.transports = transports;
		this.context = context;
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		if (event.getApplicationContext() != this.context) {
			return;
		}
		this.transports.orderedStream().forEach((transport) -> transport.closeGracefully().block(CLOSING));
	}

}
