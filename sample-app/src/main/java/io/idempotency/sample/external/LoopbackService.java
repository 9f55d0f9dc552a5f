package io.idempotency.sample.external;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;

/**
 * An external system on its own port of the loopback interface, reached over real HTTP, with a fault
 * switch for its next request. It stands for a system this application does not own.
 */
public abstract class LoopbackService implements InitializingBean, DisposableBean {

	protected static final JsonMapper JSON = new JsonMapper();

	/** How long a request armed with {@link Fault#TIMEOUT_AFTER_EFFECT} waits before answering. */
	private static final Duration LATE = Duration.ofSeconds(4);

	/** How long a request armed with {@link Fault#SLOW} waits before answering. */
	private static final Duration SLOW = Duration.ofMillis(1500);

	private final String name;

	private final int configuredPort;

	private final AtomicReference<Fault> nextFault = new AtomicReference<>(Fault.NONE);

	private final CountDownLatch stopping = new CountDownLatch(1);

	private volatile HttpServer server;

	private ExecutorService executor;

	protected LoopbackService(String name, int port) {
		this.name = name;
		this.configuredPort = port;
	}

	/** Handles one request; {@code fault} is what this request was armed with. */
	protected abstract void handle(HttpExchange exchange, Fault fault) throws IOException;

	/** The service's name, as the page and the demo call it. */
	public String name() {
		return this.name;
	}

	/** Arms the next request that acts (not a read) with a fault. */
	public void arm(Fault fault) {
		this.nextFault.set(fault);
	}

	/** The fault the next request is armed with. */
	public Fault armed() {
		return this.nextFault.get();
	}

	public String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	@Override
	public void afterPropertiesSet() {
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.configuredPort), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException("The " + this.name + " could not listen on port " + this.configuredPort, ex);
		}
		this.executor = Executors.newFixedThreadPool(4);
		this.server.setExecutor(this.executor);
		this.server.createContext("/", (exchange) -> {
			try (exchange) {
				// A fault is for the next request that acts; reads pass through.
				boolean read = exchange.getRequestMethod().equals("GET");
				handle(exchange, read ? Fault.NONE : this.nextFault.getAndSet(Fault.NONE));
			}
			catch (RuntimeException ex) {
				respond(exchange, 500, "{\"error\":\"" + ex.getClass().getSimpleName() + "\"}");
			}
		});
		this.server.start();
	}

	@Override
	public void destroy() {
		this.stopping.countDown();
		this.server.stop(0);
		this.executor.shutdownNow();
	}

	/** Waits as the fault says, after the effect: too long for the caller, or just slowly. */
	protected void delayAnswer(Fault fault) {
		Duration delay = (fault == Fault.TIMEOUT_AFTER_EFFECT) ? LATE : (fault == Fault.SLOW) ? SLOW : Duration.ZERO;
		try {
			// Stands for a slow network; ends early when the application stops.
			this.stopping.await(delay.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	protected static String body(HttpExchange exchange) throws IOException {
		try (InputStream in = exchange.getRequestBody()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	protected static String query(HttpExchange exchange, String name) {
		String query = exchange.getRequestURI().getQuery();
		if (query == null) {
			return null;
		}
		for (String pair : query.split("&")) {
			int equals = pair.indexOf('=');
			if (equals > 0 && pair.substring(0, equals).equals(name)) {
				return java.net.URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8);
			}
		}
		return null;
	}

	protected static void respond(HttpExchange exchange, int status, String json) {
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		exchange.getResponseHeaders().set("Content-Type", "application/json");
		try (OutputStream out = exchange.getResponseBody()) {
			exchange.sendResponseHeaders(status, bytes.length);
			out.write(bytes);
		}
		catch (IOException ex) {
			// The caller stopped waiting (a timeout): the effect stands, the answer is lost.
		}
	}

}
