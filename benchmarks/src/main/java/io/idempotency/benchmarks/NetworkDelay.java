package io.idempotency.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A database across a network, for the benchmarks: a TCP proxy on this machine that holds every chunk of
 * bytes, in each direction, for a fixed delay before passing it on, in order. A round trip through it takes
 * twice the delay more than on loopback, and the proxy's hand-offs between its threads add some (a
 * {@code SELECT 1} through a delay of 500 µs took 1.25 ms, against 0.02 ms on loopback); its own processor time
 * (about 30 µs a chunk there) is spent on the same processors as the benchmark's.
 * <p>
 * {@code java -cp benchmarks/target/benchmarks.jar io.idempotency.benchmarks.NetworkDelay LISTEN_PORT
 * TARGET_HOST:TARGET_PORT DELAY_MICROSECONDS}, then point the benchmark at the listening port (for PostgreSQL,
 * {@code IDEMPOTENCY_TEST_POSTGRES_URL=jdbc:postgresql://127.0.0.1:LISTEN_PORT/test?user=postgres}). Runs until
 * it is stopped.
 */
public final class NetworkDelay {

	private static final int CHUNK = 64 * 1024;

	/** Chunks held in one direction at most: a reader that gets ahead waits, as TCP's window makes a sender wait. */
	private static final int HELD = 64;

	private static final int CONNECT_TIMEOUT_MILLIS = 5000;

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
		long delay = Long.parseLong(args[2]) * 1000;
		try (ServerSocket server = new ServerSocket()) {
			server.bind(new InetSocketAddress("127.0.0.1", port));
			System.out.printf("Passing 127.0.0.1:%d to %s, %d us each way%n", port, to, delay / 1000);
			while (true) {
				Socket client = server.accept();
				Socket database = new Socket();
				try {
					database.connect(to, CONNECT_TIMEOUT_MILLIS);
					client.setTcpNoDelay(true);
					database.setTcpNoDelay(true);
				}
				catch (IOException ex) {
					// This connection fails, as it would without the proxy; the proxy goes on.
					System.out.printf("Could not connect to %s: %s%n", to, ex);
					closeQuietly(client, database);
					continue;
				}
				Runnable ended = new Connection(client, database)::directionEnded;
				pass(client, database, delay, ended);
				pass(database, client, delay, ended);
			}
		}
	}

	/** Both sockets of one connection: closed once both directions have ended, or at once when one fails. */
	private record Connection(Socket client, Socket database, AtomicInteger ended) {

		Connection(Socket client, Socket database) {
			this(client, database, new AtomicInteger());
		}

		void directionEnded() {
			if (this.ended.incrementAndGet() == 2) {
				closeQuietly(this.client, this.database);
			}
		}

	}

	/**
	 * Passes what one socket sends to the other, each chunk the delay after it was read; the end of one direction
	 * is passed on as a half-close. A failure in either direction closes both sockets, which ends the other too.
	 */
	private static void pass(Socket from, Socket to, long delay, Runnable ended) throws IOException {
		BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>(HELD);
		InputStream in = from.getInputStream();
		OutputStream out = to.getOutputStream();
		Thread reader = new Thread(() -> {
			byte[] buffer = new byte[CHUNK];
			try {
				int read;
				while ((read = in.read(buffer)) > 0) {
					chunks.put(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime() + delay));
				}
				chunks.put(new Chunk(new byte[0], System.nanoTime() + delay));
			}
			catch (IOException | InterruptedException ex) {
				closeQuietly(from, to);
				chunks.clear();
				chunks.offer(new Chunk(new byte[0], System.nanoTime()));
			}
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
						to.shutdownOutput();
						break;
					}
					out.write(chunk.bytes());
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				closeQuietly(from, to);
				// A reader waiting for room goes on, and fails on its closed socket.
				chunks.clear();
			}
			finally {
				ended.run();
			}
		}, "delay-write");
		reader.setDaemon(true);
		writer.setDaemon(true);
		reader.start();
		writer.start();
	}

	private static void closeQuietly(Socket... sockets) {
		for (Socket socket : sockets) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// Closed already.
			}
		}
	}

}
