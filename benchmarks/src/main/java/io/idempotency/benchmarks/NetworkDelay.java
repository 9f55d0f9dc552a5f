package io.idempotency.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A database across a network, for the benchmarks: a TCP proxy on this machine that holds every chunk of
 * bytes, in each direction, for a fixed delay before passing it on, in order. A round trip through it takes
 * twice the delay more than on loopback; the proxy's own processor time (a few microseconds a chunk) is
 * spent on the same processors as the benchmark's.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.NetworkDelay LISTEN_PORT
 * TARGET_HOST:TARGET_PORT DELAY_MICROSECONDS}, then point the benchmark at the listening port (for PostgreSQL,
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL=jdbc:postgresql://127.0.0.1:LISTEN_PORT/test?user=postgres}). Runs until
 * it is stopped.
 */
public final class NetworkDelay {

	private static final int CHUNK = 64 * 1024;

	/** Bytes read, and when they may be passed on ({@link System#nanoTime()}); an empty chunk ends the stream. */
	private record Chunk(byte[] bytes, long due) {
	}

	private NetworkDelay() {
	}

	public static void main(String[] args) throws IOException {
		if (args.length != 3) {
			throw new IllegalArgumentException(
					"Usage: NetworkDelay LISTEN_PORT TARGET_HOST:TARGET_PORT DELAY_MICROSECONDS");
		}
		int port = Integer.parseInt(args[0]);
		String[] target = args[1].split(":");
		InetSocketAddress to = new InetSocketAddress(target[0], Integer.parseInt(target[1]));
		Duration delay = Duration.ofNanos(Long.parseLong(args[2]) * 1000);
		try (ServerSocket server = new ServerSocket()) {
			server.bind(new InetSocketAddress("127.0.0.1", port));
			System.out.printf("Passing 127.0.0.1:%d to %s, %d us each way%n", port, to, delay.toNanos() / 1000);
			while (true) {
				Socket client = server.accept();
				Socket database = new Socket();
				database.connect(to);
				client.setTcpNoDelay(true);
				database.setTcpNoDelay(true);
				pass(client, database, delay);
				pass(database, client, delay);
			}
		}
	}

	/** Passes what one socket sends to the other, each chunk the delay after it was read. */
	private static void pass(Socket from, Socket to, Duration delay) throws IOException {
		BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
		InputStream in = from.getInputStream();
		OutputStream out = to.getOutputStream();
		Thread reader = new Thread(() -> {
			byte[] buffer = new byte[CHUNK];
			try {
				int read;
				while ((read = in.read(buffer)) > 0) {
					chunks.add(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delay.toNanos()));
				}
			}
			catch (IOException ex) {
				// The connection closed.
			}
			chunks.add(new Chunk(new byte[0], System.nanoTime() + delay.toNanos()));
		}, "delay-read");
		Thread writer = new Thread(() -> {
			try {
				while (true) {
					Chunk chunk = chunks.take();
					long wait;
					while ((wait = chunk.due() - System.nanoTime()) > 0) {
						LockSupport.parkNanos(wait);
					}
					if (chunk.bytes().length == 0) {
						break;
					}
					out.write(chunk.bytes());
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// The connection closed.
			}
			try {
				from.close();
				to.close();
			}
			catch (IOException ex) {
				// Closed already.
			}
		}, "delay-write");
		reader.setDaemon(true);
		writer.setDaemon(true);
		reader.start();
		writer.start();
	}

}
