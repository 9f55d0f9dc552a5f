package io.idempotency.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 15 with automatic failover: Patroni on three nodes (a primary and two standbys, one of them
 * synchronous unless asked otherwise, in Patroni's strict synchronous mode: the primary never commits without
 * a synchronous standby, not even just after a promotion), with a single etcd as its store, all on loopback ports, from the
 * machine's own packages. PostgreSQL listens on 5441 to 5443, Patroni's REST API on 8108 to 8110, etcd on 2479;
 * HAProxy, on a free port, leads to the primary, as it does in front of Patroni in production. Ready when the
 * REST API shows three running members, one of them the leader (and one the synchronous standby, in synchronous
 * mode), the leader streams to both standbys, and HAProxy routes to the leader alone. Patroni runs as the
 * {@code postgres} user, so the test JVM must run as root.
 *
 * <p>Applications reach the primary in either of the two ways production does: the driver's multi-host URL
 * ({@link #dataSource()}) or HAProxy ({@link #dataSourceThroughHaproxy()}).
 *
 * <p>Patroni starts each PostgreSQL detached, not as its child: stopping a node kills Patroni and then the
 * postmaster whose id is in the data directory's {@code postmaster.pid}.
 *
 * <p>One cluster per test JVM: {@link #shared()} starts it, synchronous, on first use and stops it when the JVM
 * ends.
 */
public final class PatroniCluster {

	private static final Logger logger = LoggerFactory.getLogger(PatroniCluster.class);

	public static final int NODES = 3;

	/** PostgreSQL's ports: node {@code n} (1 to 3) listens on {@code 5440 + n}. */
	public static final int FIRST_PORT = 5441;

	private static PatroniCluster shared;

	private final PatroniConfiguration configuration;

	private final PatroniProcesses processes;

	private final PatroniStatus status;

	private final PatroniHaproxy haproxy;

	private DataSource dataSource;

	private DataSource dataSourceThroughHaproxy;

	private PatroniCluster(Path work, boolean synchronous) {
		this.configuration = new PatroniConfiguration(work, synchronous);
		this.processes = new PatroniProcesses(this.configuration);
		this.status = new PatroniStatus(synchronous);
		this.haproxy = new PatroniHaproxy(work);
	}

	/** Why no cluster can be started here, or {@code null} when one can. */
	public static String unavailableReason() {
		return ClusterProcesses.unavailableReason("Patroni cluster",
				List.of("/usr/bin/patroni", "/usr/bin/etcd", PatroniConfiguration.BIN_DIR + "/postgres",
						"/usr/bin/setpriv", PatroniHaproxy.PROGRAM),
				Files::isExecutable, "patroni etcd-server postgresql-15 haproxy", "Patroni runs as the postgres user");
	}

	/** Whether a cluster can be started here. */
	public static boolean available() {
		return unavailableReason() == null;
	}

	/** The synchronous cluster of this test JVM, started and ready on first use; stopped when the JVM ends. */
	public static synchronized PatroniCluster shared() {
		if (shared == null) {
			shared = started(true);
			Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "patroni-cluster-stop"));
		}
		return shared;
	}

	/** Stops the shared cluster, if it runs, so that another can use the ports; {@link #shared()} starts it anew. */
	public static synchronized void stopShared() {
		if (shared != null) {
			shared.stop();
			shared = null;
		}
	}

	/**
	 * A new cluster, started and ready; the caller stops it.
	 * @param synchronous whether Patroni's {@code synchronous_mode} is on: a commit returns once a standby has
	 * it too
	 */
	public static PatroniCluster started(boolean synchronous) {
		PatroniCluster cluster = new PatroniCluster(ClusterProcesses.freshWorkDirectory("patroni"), synchronous);
		try {
			cluster.start();
		}
		catch (RuntimeException ex) {
			cluster.stop();
			throw ex;
		}
		return cluster;
	}

	/** The multi-host JDBC URL: whichever node is the primary, found by the driver. */
	public static String url() {
		return "jdbc:postgresql://127.0.0.1:5441,127.0.0.1:5442,127.0.0.1:5443/postgres?targetServerType=primary"
				+ "&user=postgres&connectTimeout=2";
	}

	/** A pooled data source on the multi-host URL, the same one on every call. */
	public synchronized DataSource dataSource() {
		if (this.dataSource == null) {
			this.dataSource = TestDatabases.pooled(url(), null, null);
		}
		return this.dataSource;
	}

	/** The JDBC URL through HAProxy, which leads to whichever node is the primary. */
	public String urlThroughHaproxy() {
		return "jdbc:postgresql://127.0.0.1:" + this.haproxy.port() + "/postgres?user=postgres&connectTimeout=2";
	}

	/** A pooled data source through HAProxy, the same one on every call. */
	public synchronized DataSource dataSourceThroughHaproxy() {
		if (this.dataSourceThroughHaproxy == null) {
			this.dataSourceThroughHaproxy = TestDatabases.pooled(urlThroughHaproxy(), null, null);
		}
		return this.dataSourceThroughHaproxy;
	}

	void start() {
		long started = System.nanoTime();
		this.processes.startEtcd();
		this.status.awaitEtcd(this.processes::etcdLogTail);
		for (int node = 1; node <= NODES; node++) {
			this.configuration.writeNode(node);
			this.processes.startNode(node);
		}
		this.haproxy.start();
		awaitReady();
		logger.info("Patroni cluster ({}) ready on ports {}-{}, HAProxy on {}, in {} s ({})",
				this.configuration.synchronous() ? "synchronous" : "asynchronous", FIRST_PORT, FIRST_PORT + NODES - 1,
				this.haproxy.port(), Duration.ofNanos(System.nanoTime() - started).toSeconds(), this.configuration.work());
	}

	/**
	 * Waits until the REST API shows three running members, a leader and (in synchronous mode) a sync standby,
	 * the leader streams to both standbys, and HAProxy has the leader up and the standbys down.
	 */
	public void awaitReady() {
		this.status.awaitReady(this.processes::patroniLogTail);
		this.haproxy.awaitRouting(this::primary);
	}

	/** The node (1 to 3) whose Patroni answers as the primary, if one does. */
	public OptionalInt primary() {
		return this.status.primary();
	}

	/**
	 * Kills a node at once, Patroni and its PostgreSQL (SIGKILL), as a crash of its machine does. When it was the
	 * primary, Patroni promotes a standby once the leader key expires in etcd.
	 */
	public void kill(int node) {
		String members = members();
		String killed = this.processes.kill(node);
		logger.info("Patroni node {} killed: {}; the members were {}", node, killed, members);
	}

	/**
	 * When a standby was promoted, each time one was since the cluster started, as the primary's timeline
	 * history tells: the failovers this class caused and any that Patroni made of its own accord (a leader that
	 * could not renew its lease in time, on a loaded machine).
	 */
	public List<Instant> failovers() {
		return this.status.failovers();
	}

	/** The members as a node that answers sees them: each one's name, role and state. */
	public String members() {
		return this.status.members();
	}

	/** The nodes (1 to 3) that HAProxy leads to now: the primary alone, but for a moment after a failover. */
	public Set<Integer> nodesHaproxyRoutesTo() {
		return this.haproxy.nodesUp();
	}

	/** Starts a killed node's Patroni again: it rewinds its PostgreSQL and follows the new primary. */
	public void restart(int node) {
		this.processes.startNode(node);
		awaitReady();
	}

	/**
	 * Stops HAProxy, every node and etcd (SIGKILL: the data is thrown away) and deletes the working directory.
	 */
	public synchronized void stop() {
		ClusterProcesses.closeQuietly(this.dataSource);
		this.dataSource = null;
		ClusterProcesses.closeQuietly(this.dataSourceThroughHaproxy);
		this.dataSourceThroughHaproxy = null;
		this.haproxy.stop();
		this.processes.stop();
		ClusterProcesses.delete(this.configuration.work());
	}

}
