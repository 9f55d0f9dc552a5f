package io.idempotency.sample;

import java.time.Duration;
import java.util.List;

import io.modelcontextprotocol.spec.McpServerTransportProviderBase;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Closes the MCP server's sessions when the application stops, before the web server's graceful shutdown. A
 * connected client holds a listening stream ({@code GET /mcp}) open for as long as its session lasts; left open,
 * that request keeps the graceful shutdown waiting for its whole timeout ({@code
 * spring.lifecycle.timeout-per-shutdown-phase}, 30 s). Spring AI's server closes its sessions only when its beans
 * are destroyed, after that wait. Closed first, the streams end, and the graceful shutdown waits only for the
 * calls still in progress; a client that comes back meanwhile is told the server is shutting down.
 */
@Component
class McpSessions implements SmartLifecycle {

	/** Stopped before the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}). */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private static final Duration CLOSING = Duration.ofSeconds(5);

	private final ObjectProvider<McpServerTransportProviderBase> transports;

	private volatile boolean running;

	McpSessions(ObjectProvider<McpServerTransportProviderBase> transports) {
		this.transports = transports;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		List<McpServerTransportProviderBase> all = this.transports.orderedStream().toList();
		for (McpServerTransportProviderBase transport : all) {
			transport.closeGracefully().block(CLOSING);
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
