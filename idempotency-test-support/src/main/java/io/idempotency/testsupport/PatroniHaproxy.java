package io.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;

/**
 * HAProxy in front of a Patroni cluster, as Patroni is run in production: one port, in TCP mode, that leads to
 * whichever node's Patroni REST API answers {@code GET /primary} with {@code 200}. A node is taken out after 3
 * failed checks a second apart, and its connections are cut then ({@code on-marked-down shutdown-sessions}), so
 * that none stays open to a primary that was killed or demoted; one is taken in after 2 good checks. Its
 * configuration, log and admin socket are in the cluster's working directory, on a free port.
 */
final class PatroniHaproxy {

	static final String PROGRAM = "/usr/sbin/haproxy";

	private static final Duration ROUTING_WITHIN = Duration.ofSeconds(60);

	private final Path work;

	private final int port;

	private Process process;

	PatroniHaproxy(Path work) {
		this.work = work;
		this.port = freePort();
	}

	/** The port on which it answers, in front of whichever node is the primary. */
	int port() {
		return this.port;
	}

	/** Writes its configuration and starts it in the foreground; it routes once {@link #awaitRouting} returns. */
	void start() {
		try {
			Files.writeString(config(), configuration(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.process = ClusterProcesses.start(List.of(PROGRAM, "-db", "-f", config().toString()), log(), this.work);
	}

	/**
	 * Waits until HAProxy has the primary up and every other node down: at its start it counts every node up
	 * until their checks fail, and after a failover it takes the new primary in only after its checks pass.
	 * @param primary the node that Patroni answers is the primary now, if one does
	 */
	void awaitRouting(Supplier<OptionalInt> primary) {
		ClusterProcesses.await(ROUTING_WITHIN, () -> {
			OptionalInt node = primary.get();
			return node.isPresent() && nodesUp().equals(Set.of(node.getAsInt()));
		}, "HAProxy to route to the primary alone", this::logTail);
	}

	/** The nodes (1 to 3) that HAProxy counts up, as its admin socket's {@code show stat} says. */
	Set<Integer> nodesUp() {
		Set<Integer> up = new HashSet<>();
		String stat = ask("show stat");
		for (String line : stat.split("\n")) {
			// pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,...
			String[] fields = line.split(",", -1);
			if (fields.length > 17 && fields[0].equals("primary") && fields[1].startsWith("node")
					&& fields[17].equals("UP")) {
				up.add(Integer.parseInt(fields[1].substring("node".length())));
			}
		}
		return up;
	}

	/** Kills it (SIGKILL). */
	void stop() {
		ClusterProcesses.killNow(this.process);
		this.process = null;
	}

	/**
	 * The last lines it wrote, as warnings on its standard error: each check that changed a node's health, and
	 * each node taken out or in.
	 */
	String logTail() {
		return "\n--- haproxy:\n" + ClusterProcesses.tail(log(), 20);
	}

	/** A command's answer on the admin socket; empty when the socket does not answer. */
	private String ask(String command) {
		try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
			channel.connect(UnixDomainSocketAddress.of(socket()));
			channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.US_ASCII)));
			StringBuilder answer = new StringBuilder();
			ByteBuffer buffer = ByteBuffer.allocate(8192);
			while (channel.read(buffer) >= 0) {
				buffer.flip();
				answer.append(StandardCharsets.US_ASCII.decode(buffer));
				buffer.clear();
			}
			return answer.toString();
		}
		catch (IOException ex) {
			return "";
		}
	}

	private Path config() {
		return this.work.resolve("haproxy.cfg");
	}

	private Path log() {
		return this.work.resolve("haproxy.log");
	}

	private Path socket() {
		return this.work.resolve("haproxy.sock");
	}

	/**
	 * The configuration: Patroni's REST API checked on each node ({@code check port}), a node up while it answers
	 * {@code /primary} with {@code 200} (a standby answers {@code 503}, a killed node not at all).
	 */
	private String configuration() {
		StringBuilder servers = new StringBuilder();
		for (int node = 1; node <= PatroniCluster.NODES; node++) {
			servers.append("    server node").append(node).append(" 127.0.0.1:")
				.append(PatroniCluster.FIRST_PORT + node - 1).append(" check port ")
				.append(PatroniConfiguration.restPort(node)).append('\n');
		}
		return CONFIG.replace("$SOCKET", socket().toString())
			.replace("$PORT", String.valueOf(this.port))
			.replace("$SERVERS", servers.toString());
	}

	private static final String CONFIG = """
			global
			    stats socket $SOCKET mode 600 level admin
			    maxconn 200

			defaults
			    mode tcp
			    option log-health-checks
			    timeout connect 2s
			    timeout client 30m
			    timeout server 30m
			    timeout check 2s

			listen primary
			    bind 127.0.0.1:$PORT
			    option httpchk GET /primary
			    http-check expect status 200
			    default-server inter 1s fall 3 rise 2 on-marked-down shutdown-sessions
			$SERVERS""";

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
