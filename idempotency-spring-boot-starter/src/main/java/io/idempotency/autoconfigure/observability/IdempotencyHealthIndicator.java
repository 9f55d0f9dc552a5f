package io.idempotency.autoconfigure.observability;

import java.time.Duration;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.ReplayStatistics;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Down when deduplication looks broken: exactly zero replays over a window with more than a minimum of
 * calls (a safety mechanism that never fires cannot be told from one that does not work; timeouts and
 * retries always happen), or calls waiting for a human because the reconciler could not resolve them. The
 * ledger is queried at most once per {@code cacheFor}.
 */
public class IdempotencyHealthIndicator extends AbstractHealthIndicator {

	private final JdbcLedger ledger;

	private final Duration window;

	private final long minimumCalls;

	private final int humanAfterAttempts;

	private final long cacheNanos;

	private volatile Health cached;

	private volatile long cachedAt;

	public IdempotencyHealthIndicator(JdbcLedger ledger, Duration window, long minimumCalls, int humanAfterAttempts,
			Duration cacheFor) {
		super("The idempotency ledger could not be read");
		this.ledger = ledger;
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
		Health.Builder health = Health.up()
			.withDetail("window", this.window.toString())
			.withDetail("calls", statistics.calls())
			.withDetail("replays", statistics.replays())
			.withDetail("replayRate", statistics.replayRate())
			.withDetail("awaitingHuman", awaitingHuman);
		if (statistics.replays() == 0 && statistics.calls() > this.minimumCalls) {
			health.down()
				.withDetail("problem", "no call was replayed in " + statistics.calls() + " calls over " + this.window
						+ ": deduplication may not be working (is a timestamp or a random value in the run id?)");
		}
		else if (awaitingHuman > 0) {
			health.down().withDetail("problem", awaitingHuman + " call(s) could not be reconciled and wait for a human");
		}
		return health.build();
	}

}
