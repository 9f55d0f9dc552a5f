package io.idempotency.testsupport;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * PgBouncer's admin console, spoken to in PostgreSQL's protocol by hand: pgJDBC cannot log in to it (it sends
 * {@code extra_float_digits}, which the console refuses, either at start-up or as a {@code SET}). Logs in without
 * a password ({@code auth_type = trust}) and runs one command after the other, each of which must succeed.
 */
final class PgBouncerConsole {

	private static final int PROTOCOL_3 = 196608;

	private PgBouncerConsole() {
	}

	/** Runs the commands on the console of the PgBouncer on this loopback port, as this admin user. */
	static void run(int port, String user, String... commands) {
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.setSoTimeout(30_000);
			// Each message in one write: PgBouncer refuses a start-up packet that arrives in parts.
			DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
			DataInputStream in = new DataInputStream(socket.getInputStream());
			ByteArrayOutputStream startup = new ByteArrayOutputStream();
			for (String text : new String[] { "user", user, "database", "pgbouncer", "" }) {
				startup.writeBytes(text.getBytes(StandardCharsets.UTF_8));
				startup.write(0);
			}
			out.writeInt(8 + startup.size());
			out.writeInt(PROTOCOL_3);
			out.write(startup.toByteArray());
			out.flush();
			awaitReady(in, "login");
			for (String command : commands) {
				byte[] text = (command + "\0").getBytes(StandardCharsets.UTF_8);
				out.writeByte('Q');
				out.writeInt(4 + text.length);
				out.write(text);
				out.flush();
				awaitReady(in, command);
			}
			out.writeByte('X');
			out.writeInt(4);
			out.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("PgBouncer's console on port " + port + " did not answer", ex);
		}
	}

	/** Reads messages up to ReadyForQuery; an ErrorResponse on the way fails with its text. */
	private static void awaitReady(DataInputStream in, String what) throws IOException {
		String error = null;
		while (true) {
			byte type = in.readByte();
			byte[] body = new byte[in.readInt() - 4];
			in.readFully(body);
			if (type == 'E') {
				error = message(body);
			}
			if (type == 'Z' || (type == 'E' && "login".equals(what))) {
				if (error != null) {
					throw new IllegalStateException("PgBouncer's console refused " + what + ": " + error);
				}
				return;
			}
		}
	}

	/** The message field ({@code M}) of an ErrorResponse's fields. */
	private static String message(byte[] fields) {
		for (String field : new String(fields, StandardCharsets.UTF_8).split("\0")) {
			if (field.startsWith("M")) {
				return field.substring(1);
			}
		}
		return new String(fields, StandardCharsets.UTF_8);
	}

}
