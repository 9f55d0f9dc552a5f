package io.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL 15 with automatic failover: Patroni on three nodes (a primary and two standbys, one of them
 * synchronous unless asked otherwise, in Patroni's strict synchronous mode: the primary never commits without
 * a synchronous standby, not even just after a promotion), with a single etcd as its store, all on loopback ports, from the
 * machine's own packages. PostgreSQL listens on 5441 to 5443, Patroni's REST API on 8108 to 8110, etcd on 2479.
 * Ready when the REST API shows three running members, one of them the leader (and one the synchronous
 * standby, in synchronous mode), and the leader streams to both standbys. Patroni runs as the {@code postgres}
 * user, so the test JVM must run as root.
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

	private static final int FIRST_REST_PORT = 8108;

	private static final int ETCD_PORT = 2479;

	private static final String BIN_DIR = "/usr/lib/postgresql/15/bin";

	private static final Duration READY_WITHIN = Duration.ofSeconds(120);

	private static final Pattern ROLE = Pattern.compile("\"role\":\\s*\"(\\w+)\"");

	private static final Pattern STATE = Pattern.compile("\"state\":\\s*\"(\\w+)\"");

	private static final Pattern NAME = Pattern.compile("\"name\":\\s*\"(\\w+)\"");

	/** A timeline switch in Patroni's {@code /history}: timeline, LSN, reason, the time of the switch. */
	private static final Pattern SWITCH = Pattern.compile("\\[\\s*\\d+,\\s*\\d+,\\s*\"[^\"]*\",\\s*\"([^\"]+)\"");

	private static final Pattern STREAMING = Pattern.compile("\"state\":\\s*\"(streaming)\"");

	private static PatroniCluster shared;

	private final Path work;

	private final boolean synchronous;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

	private final Map<Integer, Process> patronis = new HashMap<>();

	private Process etcd;

	private DataSource dataSource;

	private PatroniCluster(Path work, boolean synchronous) {
		this.work = work;
		this.synchronous = synchronous;
	}

	/** Why no cluster can be started here, or {@code null} when one can. */
	public static String unavailableReason() {
		List<String> missing = new ArrayList<>();
		for (String program : List.of("/usr/bin/patroni", "/usr/bin/etcd", BIN_DIR + "/postgres", "/usr/bin/setpriv")) {
			if (!Files.isExecutable(Path.of(program))) {
				missing.add(program);
			}
		}
		if (!missing.isEmpty()) {
			return "no Patroni cluster: missing " + String.join(", ", missing)
					+ " (Debian: apt-get install patroni etcd-server postgresql-15)";
		}
		if (!ClusterProcesses.runningAsRoot()) {
			return "no Patroni cluster: Patroni runs as the postgres user, so the tests must run as root";
		}
		return null;
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

	void start() {
		long started = System.nanoTime();
		startEtcd();
		for (int node = 1; node <= NODES; node++) {
			writeConfig(node);
			startNode(node);
		}
		awaitReady();
		logger.info("Patroni cluster ({}) ready on ports {}-{} in {} s ({})",
				this.synchronous ? "synchronous" : "asynchronous", FIRST_PORT, FIRST_PORT + NODES - 1,
				Duration.ofNanos(System.nanoTime() - started).toSeconds(), this.work);
	}

	private void startEtcd() {
		Path dir = this.work.resolve("etcd");
		ClusterProcesses.createDirectory(dir);
		String client = "http://127.0.0.1:" + ETCD_PORT;
		String peer = "http://127.0.0.1:" + (ETCD_PORT + 1);
		this.etcd = ClusterProcesses.start(List.of("etcd", "--name", "ledger-etcd", "--data-dir",
				dir.resolve("data").toString(), "--listen-client-urls", client, "--advertise-client-urls", client,
				"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster",
				"ledger-etcd=" + peer, "--initial-cluster-state", "new"), dir.resolve("etcd.log"), dir);
		ClusterProcesses.await(Duration.ofSeconds(30), () -> get(client + "/health").orElse(0) == 200, "etcd to answer",
				() -> ClusterProcesses.tail(dir.resolve("etcd.log"), 15));
	}

	private void writeConfig(int node) {
		Path dir = nodeDirectory(node);
		ClusterProcesses.createDirectory(dir.resolve("patroni-log"));
		String config = CONFIG.replace("$NAME", "node" + node)
			.replace("$DIR", dir.toString())
			.replace("$REST", String.valueOf(FIRST_REST_PORT + node - 1))
			.replace("$PORT", String.valueOf(FIRST_PORT + node - 1))
			.replace("$ETCD", String.valueOf(ETCD_PORT))
			.replace("$SYNCHRONOUS", String.valueOf(this.synchronous))
			.replace("$BIN", BIN_DIR);
		try {
			Files.writeString(this.work.resolve("node" + node + ".yml"), config, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ClusterProcesses.run(this.work, "chown", "-R", "postgres:postgres", dir.toString());
		ClusterProcesses.run(this.work, "chmod", "700", dir.toString());
	}

	private Path nodeDirectory(int node) {
		return this.work.resolve("pg" + node);
	}

	/** Starts a node's Patroni as the postgres user; {@code setpriv} runs it in place, so its id is Patroni's. */
	private void startNode(int node) {
		Path dir = nodeDirectory(node);
		ProcessBuilder builder = new ProcessBuilder("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups",
				"patroni", this.work.resolve("node" + node + ".yml").toString())
			.directory(dir.toFile())
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(this.work.resolve("patroni" + node + ".out").toFile()));
		builder.environment().put("HOME", dir.toString());
		try {
			this.patronis.put(node, builder.start());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Waits until the REST API shows three running members, a leader and (in synchronous mode) a sync standby,
	 * and the leader streams to both standbys.
	 */
	public void awaitReady() {
		ClusterProcesses.await(READY_WITHIN, this::ready, "the Patroni cluster to have a leader and two replicas",
				this::logTail);
	}

	private boolean ready() {
		// Every node's own Patroni answers that its PostgreSQL runs: the cluster view alone still shows a killed
		// member as running until its key in etcd expires.
		for (int node = 1; node <= NODES; node++) {
			if (get(restUrl(node) + "/health").orElse(0) != 200) {
				return false;
			}
		}
		String members = body(restUrl(1) + "/cluster");
		if (members == null) {
			return false;
		}
		List<String> roles = all(ROLE, members);
		long running = all(STATE, members).stream().filter((s) -> s.equals("running") || s.equals("streaming")).count();
		return roles.size() == NODES && running == NODES && roles.stream().filter("leader"::equals).count() == 1
				&& (!this.synchronous || roles.contains("sync_standby")) && standbysStreaming();
	}

	/**
	 * Whether the primary streams its WAL to both standbys, as its {@code pg_stat_replication} shows. A standby
	 * whose PostgreSQL runs may not receive anything yet (its replication slot not created on the primary): in
	 * asynchronous mode the cluster would look ready, and a failover would promote a standby that lacks what the
	 * primary committed since, down to the tables the test created.
	 */
	private boolean standbysStreaming() {
		OptionalInt primary = primary();
		if (primary.isEmpty()) {
			return false;
		}
		String status = body(restUrl(primary.getAsInt()) + "/patroni");
		return status != null && all(STREAMING, status).size() == NODES - 1;
	}

	/** The node (1 to 3) whose Patroni answers as the primary, if one does. */
	public OptionalInt primary() {
		for (int node = 1; node <= NODES; node++) {
			if (get(restUrl(node) + "/primary").orElse(0) == 200) {
				return OptionalInt.of(node);
			}
		}
		return OptionalInt.empty();
	}

	/**
	 * Kills a node at once, Patroni and its PostgreSQL (SIGKILL), as a crash of its machine does. When it was the
	 * primary, Patroni promotes a standby once the leader key expires in etcd.
	 */
	public void kill(int node) {
		String members = members();
		long postmaster = postmasterPid(node);
		Process patroni = this.patronis.remove(node);
		ClusterProcesses.killNow(patroni);
		if (postmaster > 0) {
			// Its backends too: a backend busy with reads does not notice that its postmaster died, and would go
			// on answering them, as no backend of a crashed machine does.
			ClusterProcesses.killWithDescendants(postmaster);
		}
		logger.info("Patroni node {} killed: Patroni (pid {}) and PostgreSQL (postmaster pid {}); the members were {}",
				node, (patroni != null) ? patroni.pid() : 0, postmaster, members);
	}

	/**
	 * When a standby was promoted, each time one was since the cluster started, as the primary's timeline
	 * history tells: the failovers this class caused and any that Patroni made of its own accord (a leader that
	 * could not renew its lease in time, on a loaded machine).
	 */
	public List<Instant> failovers() {
		OptionalInt primary = primary();
		String history = primary.isPresent() ? body(restUrl(primary.getAsInt()) + "/history") : null;
		if (history == null) {
			throw new IllegalStateException("No primary answers with its timeline history");
		}
		return all(SWITCH, history).stream().map((at) -> OffsetDateTime.parse(at).toInstant()).toList();
	}

	/** The members as a node that answers sees them: each one's name, role and state. */
	public String members() {
		for (int node = 1; node <= NODES; node++) {
			String cluster = body(restUrl(node) + "/cluster");
			if (cluster != null) {
				List<String> names = all(NAME, cluster);
				List<String> roles = all(ROLE, cluster);
				List<String> states = all(STATE, cluster);
				List<String> members = new ArrayList<>();
				for (int i = 0; i < names.size() && i < roles.size() && i < states.size(); i++) {
					members.add(names.get(i) + " " + roles.get(i) + " " + states.get(i));
				}
				return members.toString();
			}
		}
		return "[no node answers]";
	}

	/** Starts a killed node's Patroni again: it rewinds its PostgreSQL and follows the new primary. */
	public void restart(int node) {
		startNode(node);
		awaitReady();
	}

	/** The postmaster's process id, the first line of the data directory's {@code postmaster.pid}; 0 if none. */
	private long postmasterPid(int node) {
		Path pidFile = nodeDirectory(node).resolve("data").resolve("postmaster.pid");
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

	private static String restUrl(int node) {
		return "http://127.0.0.1:" + (FIRST_REST_PORT + node - 1);
	}

	private OptionalInt get(String url) {
		try {
			HttpResponse<Void> response = this.http.send(
					HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
					HttpResponse.BodyHandlers.discarding());
			return OptionalInt.of(response.statusCode());
		}
		catch (IOException ex) {
			return OptionalInt.empty();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return OptionalInt.empty();
		}
	}

	private String body(String url) {
		try {
			HttpResponse<String> response = this.http.send(
					HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
					HttpResponse.BodyHandlers.ofString());
			return (response.statusCode() == 200) ? response.body() : null;
		}
		catch (IOException ex) {
			return null;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
	}

	private static List<String> all(Pattern pattern, String text) {
		List<String> found = new ArrayList<>();
		Matcher matcher = pattern.matcher(text);
		while (matcher.find()) {
			found.add(matcher.group(1));
		}
		return found;
	}

	private String logTail() {
		StringBuilder tail = new StringBuilder();
		for (int node = 1; node <= NODES; node++) {
			tail.append("\n--- patroni ").append(node).append(":\n")
				.append(ClusterProcesses.tail(this.work.resolve("patroni" + node + ".out"), 10));
		}
		return tail.toString();
	}

	/** Stops every node and etcd (SIGKILL: the data is thrown away) and deletes the working directory. */
	public synchronized void stop() {
		ClusterProcesses.closeQuietly(this.dataSource);
		this.dataSource = null;
		for (int node = 1; node <= NODES; node++) {
			long postmaster = postmasterPid(node);
			ClusterProcesses.killNow(this.patronis.remove(node));
			if (postmaster > 0) {
				ClusterProcesses.killNow(postmaster);
			}
		}
		ClusterProcesses.killNow(this.etcd);
		this.etcd = null;
		ClusterProcesses.delete(this.work);
	}

	/**
	 * One node's Patroni configuration. A leader whose lease in etcd ({@code ttl}) runs out is replaced; the
	 * settings that must match across nodes are in {@code bootstrap.dcs}.
	 */
	private static final String CONFIG = """
			scope: ledger
			namespace: /service/
			name: $NAME
			log:
			  level: INFO
			  dir: $DIR/patroni-log
			restapi:
			  listen: 127.0.0.1:$REST
			  connect_address: 127.0.0.1:$REST
			etcd3:
			  hosts: 127.0.0.1:$ETCD
			bootstrap:
			  dcs:
			    ttl: 10
			    loop_wait: 2
			    retry_timeout: 4
			    maximum_lag_on_failover: 1048576
			    synchronous_mode: $SYNCHRONOUS
			    synchronous_mode_strict: $SYNCHRONOUS
			    postgresql:
			      use_pg_rewind: true
			      use_slots: true
			      parameters:
			        max_connections: 100
			        max_wal_senders: 5
			        max_replication_slots: 5
			        max_worker_processes: 4
			        wal_level: replica
			        hot_standby: "on"
			        wal_keep_size: 64MB
			  initdb:
			    - encoding: UTF8
			    - locale: C
			    - auth: trust
			postgresql:
			  listen: 127.0.0.1:$PORT
			  connect_address: 127.0.0.1:$PORT
			  data_dir: $DIR/data
			  bin_dir: $BIN
			  pgpass: $DIR/pgpass
			  authentication:
			    superuser:
			      username: postgres
			      password: postgres
			    replication:
			      username: replicator
			      password: replicator
			    rewind:
			      username: postgres
			      password: postgres
			  parameters:
			    shared_buffers: 32MB
			    work_mem: 2MB
			    maintenance_work_mem: 16MB
			    unix_socket_directories: $DIR
			    logging_collector: "on"
			    log_directory: $DIR/pglog
			  pg_hba:
			    - local all all trust
			    - host replication replicator 127.0.0.1/32 trust
			    - host all all 127.0.0.1/32 trust
			""";

}
