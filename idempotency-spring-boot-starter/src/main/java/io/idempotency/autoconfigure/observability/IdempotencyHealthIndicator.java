package io.idempotency.autoconfigure.observability;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.ReplayStatistics;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Down when deduplication looks broken: exactly zero replays over a window with more than a minimum of
 * calls (a safety mechanism that never fires cannot be told from one that does not work; timeouts and
 * retries always happen), calls waiting for a human because the reconciler could not resolve them, or calls
 * of transactional tools left unsettled for longer than the reconciler's threshold: their claim committed
 * without their transaction, and no reconciler resolves them. The ledger is queried at most once per
 * {@code cacheFor}.
 */
public class IdempotencyHealthIndicator extends AbstractHealthIndicator {

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
		super("The idempotency ledger could not be read");
		this.ledger = ledger;
		this.transactionalTools = transactionalTools;
		this.staleAfter = staleAfter;
		this.window = window;
		this.minimumCalls = minimumCalls;
		this.humanAfterAttempts = humanAfterAttempts;
		this.cacheNanos = cacheFor.toNanos();
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		long now = System.nanoTime();
		Health health = this.cached;
		if (health == null || now - this.cachedAt > this.cacheNanos) {
			health = check();
			this.cached = health;
			this.cachedAt = now;
		}
		builder.status(health.getStatus()).withDetails(health.getDetails());
	}

	private Health check() {
		ReplayStatistics statistics = this.ledger.replayStatistics(this.window);
		long awaitingHuman = this.ledger.countAwaitingHuman(this.humanAfterAttempts);
		Set<String> transactional = this.transactionalTools.get();
		long unsettledTransactional = this.ledger.countUnsettledOf(transactional, this.staleAfter);
		Health.Builder health = Health.up()
			.withDetail("window", this.window.toString())
			.withDetail("calls", statistics.calls())
			.withDetail("replays", statistics.replays())
			.withDetail("replayRate", statistics.replayRate())
			.withDetail("awaitingHuman", awaitingHuman)
			.withDetail("unsettledTransactional", unsettledTransactional);
		if (statistics.replays() == 0 && statistics.calls() > this.minimumCalls) {
			health.down()
				.withDetail("problem", "no call was replayed in " + statistics.calls() + " calls over " + this.window
						+ ": deduplication may not be working (is a timestamp or a random value in the run id?)");
		}
		else if (awaitingHuman > 0) {
			health.down().withDetail("problem", awaitingHuman + " call(s) could not be reconciled and wait for a human");
		}
		else if (unsettledTransactional > 0) {
			health.down()
				.withDetail("problem", unsettledTransactional + " call(s) of the transactional tools "
						+ new TreeSet<>(transactional) + " are unsettled after " + this.staleAfter + ": their claim"
						+ " committed without their transaction (is the tools' transaction manager the ledger"
						+ " DataSource's?), and no reconciler resolves them. Settle them by hand");
		}
		return health.build();
	}

}
