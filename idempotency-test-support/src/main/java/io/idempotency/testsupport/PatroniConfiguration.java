package io.idempotency.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a Patroni cluster's pieces live: the ports of etcd and of each node's REST API, the files and data
 * directories in the working directory, etcd's command line and each node's Patroni configuration.
 */
final class PatroniConfiguration {

	/** The PostgreSQL 15 programs Patroni runs. */
	static final String BIN_DIR = "/usr/lib/postgresql/15/bin";

	private static final int FIRST_REST_PORT = 8108;

	private static final int ETCD_PORT = 2479;

	private final Path work;

	private final boolean synchronous;

	PatroniConfiguration(Path work, boolean synchronous) {
		this.work = work;
		this.synchronous = synchronous;
	}

	/** The working directory that holds everything the cluster writes. */
	Path work() {
		return this.work;
	}

	/** Whether Patroni's {@code synchronous_mode} (and its strict mode) is on. */
	boolean synchronous() {
		return this.synchronous;
	}

	/** The port of a node's (1 to 3) Patroni REST API. */
	static int restPort(int node) {
		return FIRST_REST_PORT + node - 1;
	}

	/** The base URL of a node's (1 to 3) Patroni REST API. */
	static String restUrl(int node) {
		return "http://127.0.0.1:" + restPort(node);
	}

	/** The URL on which etcd answers its clients. */
	static String etcdUrl() {
		return "http://127.0.0.1:" + ETCD_PORT;
	}

	Path etcdDirectory() {
		return this.work.resolve("etcd");
	}

	Path etcdLog() {
		return etcdDirectory().resolve("etcd.log");
	}

	/** etcd's command line: a single member, a new cluster, data in its own directory. */
	List<String> etcdCommand() {
		String client = etcdUrl();
		String peer = "http://127.0.0.1:" + (ETCD_PORT + 1);
		return List.of("etcd", "--name", "ledger-etcd", "--data-dir", etcdDirectory().resolve("data").toString(),
				"--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
				"--initial-advertise-peer-urls", peer, "--initial-cluster", "ledger-etcd=" + peer,
				"--initial-cluster-state", "new");
	}

	/** A node's own directory: its PostgreSQL data directory, socket and logs. */
	Path nodeDirectory(int node) {
		return this.work.resolve("pg" + node);
	}

	Path nodeConfig(int node) {
		return this.work.resolve("node" + node + ".yml");
	}

	/** Where a node's Patroni writes its output. */
	Path patroniOutput(int node) {
		return this.work.resolve("patroni" + node + ".out");
	}

	/** The data directory's {@code postmaster.pid}, whose first line is the postmaster's process id. */
	Path postmasterPidFile(int node) {
		return nodeDirectory(node).resolve("data").resolve("postmaster.pid");
	}

	/** Writes a node's configuration and gives its directory to the postgres user, for it alone. */
	void writeNode(int node) {
		Path dir = nodeDirectory(node);
		ClusterProcesses.createDirectory(dir.resolve("patroni-log"));
		String config = CONFIG.replace("$NAME", "node" + node)
			.replace("$DIR", dir.toString())
			.replace("$REST", String.valueOf(restPort(node)))
			.replace("$PORT", String.valueOf(PatroniCluster.FIRST_PORT + node - 1))
			.replace("$ETCD", String.valueOf(ETCD_PORT))
			.replace("$SYNCHRONOUS", String.valueOf(this.synchronous))
			.replace("$BIN", BIN_DIR);
		try {
			Files.writeString(nodeConfig(node), config, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		ClusterProcesses.run(this.work, "chown", "-R", "postgres:postgres", dir.toString());
		ClusterProcesses.run(this.work, "chmod", "700", dir.toString());
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
