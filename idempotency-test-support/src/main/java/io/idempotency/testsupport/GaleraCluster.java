package io.idempotency.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three MariaDB Galera nodes on loopback ports 3311 to 3313, each a primary, from the machine's own
 * {@code mariadbd} and Galera provider: started in a working directory of their own, ready when every node is in a
 * cluster of three and synced, and stopped by their process ids. The first node starts a new cluster; the others
 * join it by a state transfer (rsync) from a donor. The servers run as the {@code mysql} user, which the state
 * transfer needs, so the test JVM must run as root.
 *
 * <p>One cluster per test JVM: {@link #shared()} starts it on first use and stops it when the JVM ends.
 */
public final class GaleraCluster {

	private static final Logger logger = LoggerFactory.getLogger(GaleraCluster.class);

	/** The nodes' client ports: node {@code n} (1 to 3) listens on {@code 3310 + n}. */
	public static final int FIRST_PORT = 3311;

	public static final int NODES = 3;

	private static final String PROVIDER = "/usr/lib/galera/libgalera_smm.so";

	private static final Duration READY_WITHIN = Duration.ofSeconds(180);

	private static GaleraCluster shared;

	private final Path work;

	private final Map<Integer, Process> servers = new HashMap<>();

	private final Map<Integer, DataSource> dataSources = new HashMap<>();

	private GaleraCluster(Path work) {
		this.work = work;
	}

	/**
	 * Why no cluster can be started here, or {@code null} when one can: the programs it needs and the user it
	 * runs as.
	 */
	public static String unavailableReason() {
		return ClusterProcesses.unavailableReason("MariaDB Galera cluster",
				List.of("/usr/sbin/mariadbd", "/usr/bin/mariadb-install-db", PROVIDER, "/usr/bin/rsync"), Files::exists,
				"mariadb-server galera-4 rsync", "its servers run as the mysql user");
	}

	/** Whether a cluster can be started here. */
	public static boolean available() {
		return unavailableReason() == null;
	}

	/** The cluster of this test JVM, started and ready on first use; stopped when the JVM ends. */
	public static synchronized GaleraCluster shared() {
		if (shared == null) {
			GaleraCluster cluster = new GaleraCluster(ClusterProcesses.freshWorkDirectory("galera"));
			Runtime.getRuntime().addShutdownHook(new Thread(cluster::stop, "galera-cluster-stop"));
			cluster.start();
			shared = cluster;
		}
		return shared;
	}

	/** The client port of a node (1 to 3). */
	public static int port(int node) {
		return FIRST_PORT + node - 1;
	}

	/** The JDBC URL of a node's {@code test} database (1 to 3). */
	public static String url(int node) {
		return "jdbc:mariadb://127.0.0.1:" + port(node) + "/test?user=root";
	}

	/** A pooled data source on one node (1 to 3), the same one on every call. */
	public synchronized DataSource dataSource(int node) {
		return this.dataSources.computeIfAbsent(node, (n) -> TestDatabases.pooled(url(n), null, null));
	}

	/** Starts the three nodes, one after the other, and waits until the cluster is ready. */
	void start() {
		long started = System.nanoTime();
		for (int node = 1; node <= NODES; node++) {
			initialize(node);
		}
		startNode(1, true);
		awaitAnswer(1);
		createTestDatabase();
		startNode(2, false);
		startNode(3, false);
		awaitReady();
		logger.info("MariaDB Galera cluster ready on ports {}-{} in {} s ({})", port(1), port(NODES),
				Duration.ofNanos(System.nanoTime() - started).toSeconds(), this.work);
	}

	private void initialize(int node) {
		Path dir = this.work.resolve("n" + node);
		ClusterProcesses.createDirectory(dir);
		ClusterProcesses.run(this.work, "mariadb-install-db", "--no-defaults", "--datadir=" + dir.resolve("data"),
				"--user=mysql", "--auth-root-authentication-method=normal");
		ClusterProcesses.run(this.work, "chown", "-R", "mysql:mysql", dir.toString());
	}

	/** Starts a node's server; the first node of a new cluster bootstraps it, every other one joins. */
	private void startNode(int node, boolean newCluster) {
		Path dir = this.work.resolve("n" + node);
		int galera = 4560 + node;
		List<String> command = new ArrayList<>(List.of("mariadbd", "--no-defaults", "--user=mysql",
				"--datadir=" + dir.resolve("data"), "--port=" + port(node), "--bind-address=127.0.0.1",
				"--socket=" + dir.resolve("sock"), "--pid-file=" + dir.resolve("pid"), "--binlog-format=ROW",
				"--default-storage-engine=InnoDB", "--innodb-autoinc-lock-mode=2", "--innodb-buffer-pool-size=64M",
				"--max-connections=200", "--wsrep-on=ON", "--wsrep-provider=" + PROVIDER,
				"--wsrep-cluster-name=ledger",
				"--wsrep-cluster-address=gcomm://127.0.0.1:4561,127.0.0.1:4562,127.0.0.1:4563",
				"--wsrep-node-address=127.0.0.1:" + galera,
				"--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:" + galera + ";ist.recv_addr=127.0.0.1:"
						+ (4570 + node),
				"--wsrep-sst-receive-address=127.0.0.1:" + (4580 + node), "--wsrep-sst-method=rsync",
				"--wsrep-node-name=n" + node));
		if (newCluster) {
			command.add("--wsrep-new-cluster");
		}
		this.servers.put(node, ClusterProcesses.start(command, dir.resolve("log"), this.work));
	}

	/**
	 * Kills a node at once (SIGKILL), as a crash does; the other two go on as the cluster.
	 * @return the process id that was killed
	 */
	public long kill(int node) {
		Process server = this.servers.remove(node);
		ClusterProcesses.killNow(server);
		return server.pid();
	}

	/**
	 * Starts a killed node again: it joins the cluster by state transfer. Returns once every node is again in a
	 * cluster of three and synced.
	 */
	public void restart(int node) {
		ClusterProcesses.run(this.work, "chown", "-R", "mysql:mysql", this.work.resolve("n" + node).toString());
		startNode(node, false);
		awaitReady();
	}

	private void awaitAnswer(int node) {
		ClusterProcesses.await(READY_WITHIN, () -> status(node) != null, "Galera node " + node + " to answer", this::logTail);
	}

	private void createTestDatabase() {
		try (Connection connection = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port(1) + "/?user=root");
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE DATABASE IF NOT EXISTS test");
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not create the test database on Galera node 1", ex);
		}
	}

	/** Waits until every node reports a cluster of three and the state Synced. */
	public void awaitReady() {
		ClusterProcesses.await(READY_WITHIN, this::ready, "the Galera cluster to be three synced nodes", this::logTail);
	}

	private boolean ready() {
		for (int node = 1; node <= NODES; node++) {
			Map<String, String> status = status(node);
			if (status == null || !"3".equals(status.get("wsrep_cluster_size"))
					|| !"Synced".equals(status.get("wsrep_local_state_comment"))) {
				return false;
			}
		}
		return true;
	}

	/** A node's wsrep status, or {@code null} while it does not answer. */
	private static Map<String, String> status(int node) {
		try (Connection connection = DriverManager
			.getConnection("jdbc:mariadb://127.0.0.1:" + port(node) + "/?user=root&connectTimeout=1000");
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SHOW STATUS LIKE 'wsrep%'")) {
			Map<String, String> status = new HashMap<>();
			while (rows.next()) {
				status.put(rows.getString(1), rows.getString(2));
			}
			return status;
		}
		catch (SQLException ex) {
			return null;
		}
	}

	private String logTail() {
		return ClusterProcesses.tails("node", NODES, (node) -> this.work.resolve("n" + node).resolve("log"), 15);
	}

	/** Stops every node (SIGKILL: the data is thrown away) and deletes the working directory. */
	public synchronized void stop() {
		this.dataSources.values().forEach(ClusterProcesses::closeQuietly);
		this.dataSources.clear();
		this.servers.values().forEach(ClusterProcesses::killNow);
		this.servers.clear();
		ClusterProcesses.delete(this.work);
	}

}
