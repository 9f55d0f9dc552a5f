package io.idempotency.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The processes of a Patroni cluster: etcd, each node's Patroni (as the postgres user) and the PostgreSQL that
 * Patroni starts detached, found by its {@code postmaster.pid}; started, killed and stopped, and their logs.
 */
final class PatroniProcesses {

	private final PatroniConfiguration configuration;

	private final Map<Integer, Process> patronis = new HashMap<>();

	private Process etcd;

	PatroniProcesses(PatroniConfiguration configuration) {
		this.configuration = configuration;
	}

	/** Starts etcd in a directory of its own; it answers once {@link PatroniStatus#awaitEtcd} returns. */
	void startEtcd() {
		Path dir = this.configuration.etcdDirectory();
		ClusterProcesses.createDirectory(dir);
		this.etcd = ClusterProcesses.start(this.configuration.etcdCommand(), this.configuration.etcdLog(), dir);
	}

	/** Starts a node's Patroni as the postgres user; {@code setpriv} runs it in place, so its id is Patroni's. */
	void startNode(int node) {
		Path dir = this.configuration.nodeDirectory(node);
		this.patronis.put(node,
				ClusterProcesses.start(
						List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "patroni",
								this.configuration.nodeConfig(node).toString()),
						this.configuration.patroniOutput(node), dir, Map.of("HOME", dir.toString())));
	}

	/**
	 * Kills a node at once, Patroni and its PostgreSQL with every backend (SIGKILL), as a crash of its machine
	 * does.
	 * @return what was killed, with the process ids
	 */
	String kill(int node) {
		long postmaster = postmasterPid(node);
		Process patroni = this.patronis.remove(node);
		ClusterProcesses.killNow(patroni);
		if (postmaster > 0) {
			// Its backends too: a backend busy with reads does not notice that its postmaster died, and would go
			// on answering them, as no backend of a crashed machine does.
			ClusterProcesses.killWithDescendants(postmaster);
		}
		return "Patroni (pid " + ((patroni != null) ? patroni.pid() : 0) + ") and PostgreSQL (postmaster pid "
				+ postmaster + ")";
	}

	/** Kills every node's Patroni and postmaster, then etcd (SIGKILL). */
	void stop() {
		for (int node = 1; node <= PatroniCluster.NODES; node++) {
			long postmaster = postmasterPid(node);
			ClusterProcesses.killNow(this.patronis.remove(node));
			if (postmaster > 0) {
				ClusterProcesses.killNow(postmaster);
			}
		}
		ClusterProcesses.killNow(this.etcd);
		this.etcd = null;
	}

	/** The postmaster's process id, the first line of the data directory's {@code postmaster.pid}; 0 if none. */
	private long postmasterPid(int node) {
		Path pidFile = this.configuration.postmasterPidFile(node);
		try {
			if (!Files.exists(pidFile)) {
				return 0;
			}
			return Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	/** The last lines etcd logged. */
	String etcdLogTail() {
		return ClusterProcesses.tail(this.configuration.etcdLog(), 15);
	}

	/** The last lines each node's Patroni wrote. */
	String patroniLogTail() {
		return ClusterProcesses.tails("patroni", PatroniCluster.NODES, this.configuration::patroniOutput, 10);
	}

}
