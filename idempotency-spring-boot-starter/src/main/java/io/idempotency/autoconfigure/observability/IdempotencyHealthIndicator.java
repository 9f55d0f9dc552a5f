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
 * balancer at once, for a state of the shared ledger that no restart fixes.
 * <p>
 * The details also carry the counts, read at most once per {@code cacheFor}, once at a time, each reading
 * bounded by {@code timeout}. When the ledger's table does not answer within it (a
 * lock held by a migration, a {@code VACUUM FULL}, a {@code LOCK TABLE}), a probe answers from the last reading,
 * marked {@code stale} with its age ({@code readAgo}) and a warning; before any reading, UNKNOWN with the reason.
 * Calls wait for such a lock too, but are not refused, and every instance sees the same lock: no instance is
 * taken out of traffic for it.
 */
public class IdempotencyHealthIndicator extends AbstractHealthIndicator {

	private final JdbcLedger ledger;

	private final Duration window;

	private final long minimumCalls;

	private final int humanAfterAttempts;

	private final Supplier<Set<String>> transactionalTools;

	private final Duration staleAfter;

	private final int validWithinSeconds;

	private final LedgerReading<Counts> counts;

	/**
	 * @param transactionalTools the names of the application's transactional tools, asked at each reading
	 * @param staleAfter how long a call of one may stay unsettled before it is reported
	 * @param timeout how long a reading of the counts, and the check that the database answers, may take: a
	 * whole number of seconds, at least one (JDBC's query timeouts are in seconds)
	 */
	public IdempotencyHealthIndicator(JdbcLedger ledger, Duration window, long minimumCalls, int humanAfterAttempts,
			Duration cacheFor, Supplier<Set<String>> transactionalTools, Duration staleAfter, Duration timeout) {
		super("The idempotency ledger could not be reached or read");
		this.ledger = ledger;
		this.transactionalTools = transactionalTools;
		this.staleAfter = staleAfter;
		this.window = window;
		this.minimumCalls = minimumCalls;
		this.humanAfterAttempts = humanAfterAttempts;
		this.validWithinSeconds = Math.toIntExact(timeout.toSeconds());
		this.counts = new LedgerReading<>(new LedgerReads(ledger, timeout), this::count, cacheFor,
				"idempotency-health");
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) throws SQLException {
		reach();
		LedgerReading.Reading<Counts> reading;
		try {
			reading = this.counts.get();
		}
		catch (LedgerReads.NotAnswered ex) {
			builder.unknown().withDetail("warning", true).withDetail("problems", List.of(ex.getMessage()));
			return;
		}
		Counts counts = reading.value();
		List<String> problems = counts.problems(this.window, this.minimumCalls, this.staleAfter);
		builder.up()
			.withDetail("window", this.window.toString())
			.withDetail("calls", counts.statistics().calls())
			.withDetail("replays", counts.statistics().replays())
			.withDetail("replayRate", counts.statistics().replayRate())
			.withDetail("awaitingHuman", counts.awaitingHuman())
			.withDetail("unsettledTransactional", counts.unsettledTransactional());
		if (reading.late()) {
			problems.add("the ledger's table " + this.ledger.tableName() + " did not answer within "
					+ Duration.ofSeconds(this.validWithinSeconds) + " (is it locked by a migration, a VACUUM FULL or a"
					+ " LOCK TABLE?): these counts were read " + reading.age().withNanos(0) + " ago");
			builder.withDetail("stale", true).withDetail("readAgo", reading.age().withNanos(0).toString());
		}
		builder.withDetail("warning", !problems.isEmpty()).withDetail("problems", List.copyOf(problems));
	}

	/** Throws unless the ledger's database answers now: a reading of the counts may be older. */
	private void reach() throws SQLException {
		try (Connection connection = this.ledger.dataSource().getConnection()) {
			if (!connection.isValid(this.validWithinSeconds)) {
				throw new SQLException("The ledger's database did not answer within " + this.validWithinSeconds + "s");
			}
		}
	}

	private Counts count() {
		Set<String> transactional = this.transactionalTools.get();
		return new Counts(this.ledger.replayStatistics(this.window),
				this.ledger.countAwaitingHuman(this.humanAfterAttempts), transactional,
				this.ledger.countUnsettledOf(transactional, this.staleAfter));
	}

	/** One reading of the ledger. */
	private record Counts(ReplayStatistics statistics, long awaitingHuman, Set<String> transactional,
			long unsettledTransactional) {

		List<String> problems(Duration window, long minimumCalls, Duration staleAfter) {
			List<String> problems = new ArrayList<>();
			if (this.statistics.replays() == 0 && this.statistics.calls() > minimumCalls) {
				problems.add("no call was replayed in " + this.statistics.calls() + " calls over " + window
						+ ": deduplication may not be working (is a timestamp or a random value in the run id?)");
			}
			if (this.awaitingHuman > 0) {
				problems.add(this.awaitingHuman + " call(s) could not be reconciled and wait for a human");
			}
			if (this.unsettledTransactional > 0) {
				problems.add(this.unsettledTransactional + " call(s) of the transactional tools "
						+ new TreeSet<>(this.transactional) + " are unsettled after " + staleAfter
						+ ": their claim committed without their transaction (is the tools' transaction manager the"
						+ " ledger DataSource's?), and no reconciler resolves them. Settle them by hand");
			}
			return problems;
		}

	}

}
