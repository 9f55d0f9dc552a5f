package io.idempotency.autoconfigure.observability;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.ReplayStatistics;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether this instance can serve idempotent calls. DOWN when the ledger cannot be reached (a connection of
 * its {@code DataSource}, checked at every probe) or read: every call would then be refused. Signals that need
 * a person but do not stop the instance from serving leave it UP, with {@code warning: true} and one sentence
 * each in {@code problems}, as Spring Boot's own SSL indicator reports certificates about to expire: exactly
 * zero replays over a window with more than a minimum of calls (a safety mechanism that never fires cannot be
 * told from one that does not work; timeouts and retries always happen), calls waiting for a human because
 * the reconciler could not resolve them, and calls of transactional tools left unsettled for longer than the
 * reconciler's threshold (their claim committed without their transaction, and no reconciler resolves them).
 * A DOWN for those would answer 503 on {@code /actuator/health} and take every instance out of its load
 * balancer at once, for a state of the shared ledger that no restart fixes. The details also carry the
 * counts; the ledger is counted at most once per {@code cacheFor}.
 */
public class IdempotencyHealthIndicator extends AbstractHealthIndicator {

	/** How long a connection of the ledger's database may take to answer that it is valid. */
	private static final int VALID_WITHIN_SECONDS = 2;

	private final JdbcLedger ledger;

	private final Duration window;

	private final long minimumCalls;

	private final int humanAfterAttempts;

	private final long cacheNanos;

	private final Supplier<Set<String>> transactionalTools;

	private final Duration staleAfter;

	private volatile Health cached;

	private volatile long cachedAt;

	/**
	 * @param transactionalTools the names of the application's transactional tools, asked at each check
	 * @param staleAfter how long a call of one may stay unsettled before it is reported
	 */
	public IdempotencyHealthIndicator(JdbcLedger ledger, Duration window, long minimumCalls, int humanAfterAttempts,
			Duration cacheFor, Supplier<Set<String>> transactionalTools, Duration staleAfter) {
		super("The idempotency ledger could not be reached or read");
		this.ledger = ledger;
		this.transactionalTools = transactionalTools;
		this.staleAfter = staleAfter;
		this.window = window;
		this.minimumCalls = minimumCalls;
		this.humanAfterAttempts = humanAfterAttempts;
		this.cacheNanos = cacheFor.toNanos();
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws SQLException {
		reach();
		long now = System.nanoTime();
		Health health = this.cached;
		if (health == null || now - this.cachedAt > this.cacheNanos) {
			health = check();
			this.cached = health;
			this.cachedAt = now;
		}
		builder.status(health.getStatus()).withDetails(health.getDetails());
	}

	/** Throws unless the ledger's database answers now: a reading of the counts may be older. */
	private void reach() throws SQLException {
		try (Connection connection = this.ledger.dataSource().getConnection()) {
			if (!connection.isValid(VALID_WITHIN_SECONDS)) {
				throw new SQLException("The ledger's database did not answer within " + VALID_WITHIN_SECONDS + "s");
			}
		}
	}

	private Health check() {
		ReplayStatistics statistics = this.ledger.replayStatistics(this.window);
		long awaitingHuman = this.ledger.countAwaitingHuman(this.humanAfterAttempts);
		Set<String> transactional = this.transactionalTools.get();
		long unsettledTransactional = this.ledger.countUnsettledOf(transactional, this.staleAfter);
		List<String> problems = new ArrayList<>();
		if (statistics.replays() == 0 && statistics.calls() > this.minimumCalls) {
			problems.add("no call was replayed in " + statistics.calls() + " calls over " + this.window
					+ ": deduplication may not be working (is a timestamp or a random value in the run id?)");
		}
		if (awaitingHuman > 0) {
			problems.add(awaitingHuman + " call(s) could not be reconciled and wait for a human");
		}
		if (unsettledTransactional > 0) {
			problems.add(unsettledTransactional + " call(s) of the transactional tools " + new TreeSet<>(transactional)
					+ " are unsettled after " + this.staleAfter + ": their claim committed without their transaction"
					+ " (is the tools' transaction manager the ledger DataSource's?), and no reconciler resolves them."
					+ " Settle them by hand");
		}
		return Health.up()
			.withDetail("window", this.window.toString())
			.withDetail("calls", statistics.calls())
			.withDetail("replays", statistics.replays())
			.withDetail("replayRate", statistics.replayRate())
			.withDetail("awaitingHuman", awaitingHuman)
			.withDetail("unsettledTransactional", unsettledTransactional)
			.withDetail("warning", !problems.isEmpty())
			.withDetail("problems", List.copyOf(problems))
			.build();
	}

}
