package io.idempotency.testsupport;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Patroni cluster says of itself over HTTP (etcd's health, each node's Patroni REST API: the primary, the
 * members, the timeline history), and waiting, with a deadline, until etcd answers and the cluster is ready.
 */
final class PatroniStatus {

	private static final Duration ETCD_WITHIN = Duration.ofSeconds(30);

	private static final Duration READY_WITHIN = Duration.ofSeconds(120);

	private static final Pattern ROLE = Pattern.compile("\"role\":\\s*\"(\\w+)\"");

	private static final Pattern STATE = Pattern.compile("\"state\":\\s*\"(\\w+)\"");

	private static final Pattern NAME = Pattern.compile("\"name\":\\s*\"(\\w+)\"");

	/** A timeline switch in Patroni's {@code /history}: timeline, LSN, reason, the time of the switch. */
	private static final Pattern SWITCH = Pattern.compile("\\[\\s*\\d+,\\s*\\d+,\\s*\"[^\"]*\",\\s*\"([^\"]+)\"");

	private static final Pattern STREAMING = Pattern.compile("\"state\":\\s*\"(streaming)\"");

	private static final int NODES = PatroniCluster.NODES;

	private final boolean synchronous;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

	PatroniStatus(boolean synchronous) {
		this.synchronous = synchronous;
	}

	/** Waits until etcd answers that it is healthy; past the deadline, fails with what it logged. */
	void awaitEtcd(Supplier<String> logs) {
		ClusterProcesses.await(ETCD_WITHIN, () -> get(PatroniConfiguration.etcdUrl() + "/health").orElse(0) == 200,
				"etcd to answer", logs);
	}

	/** Waits until the cluster is ready; past the deadline, fails with what the nodes logged. */
	void awaitReady(Supplier<String> logs) {
		ClusterProcesses.await(READY_WITHIN, this::ready, "the Patroni cluster to have a leader and two replicas",
				logs);
	}

	private boolean ready() {
		// Every node's own Patroni answers that its PostgreSQL runs: the cluster view alone still shows a killed
		// member as running until its key in etcd expires.
		for (int node = 1; node <= NODES; node++) {
			if (get(PatroniConfiguration.restUrl(node) + "/health").orElse(0) != 200) {
				return false;
			}
		}
		String members = body(PatroniConfiguration.restUrl(1) + "/cluster");
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
		String status = body(PatroniConfiguration.restUrl(primary.getAsInt()) + "/patroni");
		return status != null && all(STREAMING, status).size() == NODES - 1;
	}

	/** The node (1 to 3) whose Patroni answers as the primary, if one does. */
	OptionalInt primary() {
		for (int node = 1; node <= NODES; node++) {
			if (get(PatroniConfiguration.restUrl(node) + "/primary").orElse(0) == 200) {
				return OptionalInt.of(node);
			}
		}
		return OptionalInt.empty();
	}

	/** When a standby was promoted, each time, as the primary's timeline history tells. */
	List<Instant> failovers() {
		OptionalInt primary = primary();
		String history = primary.isPresent() ? body(PatroniConfiguration.restUrl(primary.getAsInt()) + "/history")
				: null;
		if (history == null) {
			throw new IllegalStateException("No primary answers with its timeline history");
		}
		return all(SWITCH, history).stream().map((at) -> OffsetDateTime.parse(at).toInstant()).toList();
	}

	/** The members as a node that answers sees them: each one's name, role and state. */
	String members() {
		for (int node = 1; node <= NODES; node++) {
			String cluster = body(PatroniConfiguration.restUrl(node) + "/cluster");
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

	private OptionalInt get(String url) {
		HttpResponse<Void> response = send(url, HttpResponse.BodyHandlers.discarding());
		return (response != null) ? OptionalInt.of(response.statusCode()) : OptionalInt.empty();
	}

	/** The body of a {@code 200} answer, or {@code null}. */
	private String body(String url) {
		HttpResponse<String> response = send(url, HttpResponse.BodyHandlers.ofString());
		return (response != null && response.statusCode() == 200) ? response.body() : null;
	}

	/** A GET with a two-second timeout; {@code null} when nothing answers. */
	private <T> HttpResponse<T> send(String url, HttpResponse.BodyHandler<T> handler) {
		try {
			return this.http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
					handler);
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

}
