package io.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * What the cluster launchers share: whether a cluster can run here, working directories, the server processes
 * they start and stop by process id and their logs, and waiting on a condition with a deadline.
 */
final class ClusterProcesses {

	private static final Duration POLL = Duration.ofMillis(250);

	private ClusterProcesses() {
	}

	/**
	 * Why a cluster cannot be started here, or {@code null} when it can: the programs it needs that are missing
	 * (with the Debian packages that bring them), else a test JVM that does not run as root.
	 */
	static String unavailableReason(String cluster, List<String> programs, Predicate<Path> present, String packages,
			String runsAs) {
		List<String> missing = new ArrayList<>();
		for (String program : programs) {
			if (!present.test(Path.of(program))) {
				missing.add(program);
			}
		}
		if (!missing.isEmpty()) {
			return "no " + cluster + ": missing " + String.join(", ", missing) + " (Debian: apt-get install "
					+ packages + ")";
		}
		if (!"root".equals(System.getProperty("user.name"))) {
			return "no " + cluster + ": " + runsAs + ", so the tests must run as root";
		}
		return null;
	}

	/** A new, empty working directory that the servers' users can enter. */
	static Path freshWorkDirectory(String name) {
		try {
			Path work = Files.createTempDirectory("idempotency-" + name + "-");
			Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
			return work;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static void createDirectory(Path dir) {
		try {
			Files.createDirectories(dir);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Runs a command to its end; it must succeed. */
	static void run(Path work, String... command) {
		Path log = work.resolve("commands.log");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " failed:\n" + tail(log, 20));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Starts a server process, its output appended to a log file. */
	static Process start(List<String> command, Path log, Path directory) {
		return start(command, log, directory, Map.of());
	}

	/** Starts a server process with these variables added to its environment, its output appended to a log file. */
	static Process start(List<String> command, Path log, Path directory, Map<String, String> environment) {
		ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
		builder.environment().putAll(environment);
		try {
			return builder.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Kills a process at once (SIGKILL) and waits until it is gone. */
	static void killNow(Process process) {
		if (process != null) {
			killNow(process.toHandle());
		}
	}

	/** Kills a process by its id (SIGKILL), if it still runs, and waits until it is gone. */
	static void killNow(long pid) {
		ProcessHandle.of(pid).ifPresent(ClusterProcesses::killNow);
	}

	/**
	 * Kills a process and every process it started (SIGKILL), its descendants first, every one signalled before
	 * any is waited for, and waits until they are gone: as a machine that crashes stops them all at once. Killed
	 * one after another, waiting for each, a server's processes outlived its main one for seconds: a PostgreSQL
	 * backend whose commit waits for a synchronous standby stops waiting when its postmaster dies, and the
	 * commit, on no standby, was read by the backends still alive.
	 */
	static void killWithDescendants(long pid) {
		ProcessHandle.of(pid).ifPresent((process) -> {
			List<ProcessHandle> all = Stream.concat(process.descendants(), Stream.of(process)).toList();
			all.forEach(ProcessHandle::destroyForcibly);
			all.forEach(ClusterProcesses::killNow);
		});
	}

	private static void killNow(ProcessHandle process) {
		process.destroyForcibly();
		try {
			process.onExit().get(30, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Process " + process.pid() + " did not end after SIGKILL", ex);
		}
	}

	/** Waits until the condition holds; past the deadline, fails with what the servers logged. */
	static void await(Duration within, BooleanSupplier condition, String what, Supplier<String> logs) {
		long deadline = System.nanoTime() + within.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Waited " + within.toSeconds() + " s for " + what + logs.get());
			}
			LockSupport.parkNanos(POLL.toNanos());
		}
	}

	/** The last lines of a log file. */
	static String tail(Path log, int lines) {
		try {
			if (!Files.exists(log)) {
				return "(no " + log + ")";
			}
			List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
			return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
		}
		catch (IOException ex) {
			return "(" + ex + ")";
		}
	}

	/** The last lines of each node's log (nodes 1 to {@code nodes}), one after the other under a heading. */
	static String tails(String heading, int nodes, IntFunction<Path> log, int lines) {
		StringBuilder tail = new StringBuilder();
		for (int node = 1; node <= nodes; node++) {
			tail.append("\n--- ").append(heading).append(' ').append(node).append(":\n")
				.append(tail(log.apply(node), lines));
		}
		return tail.toString();
	}

	static void closeQuietly(Object closeable) {
		if (closeable instanceof AutoCloseable resource) {
			try {
				resource.close();
			}
			catch (Exception ex) {
				// Stopping: nothing is left to tell.
			}
		}
	}

	/** Deletes a working directory and everything in it. */
	static void delete(Path work) {
		if (!Files.exists(work)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(work)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException | UncheckedIOException ex) {
			// A file a server was still writing: the temporary directory is left for the system to clear.
		}
	}

}
