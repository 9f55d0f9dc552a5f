package io.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

import io.idempotency.Reconciler;
import io.idempotency.ledger.JdbcLedger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The ledger's background work, on a scheduler of its own (the application's scheduling is left alone):
 * marking the calls this instance executes as still running, writing replay counts, reconciling stale
 * calls, and deleting old settled calls, each on a thread of its own so that a slow reconcile pass never
 * holds up a heartbeat. On shutdown it writes the last replay counts.
 */
public class IdempotencyMaintenance implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(IdempotencyMaintenance.class);

	private final JdbcLedger ledger;

	private final ObjectProvider<Reconciler> reconciler;

	private final IdempotencyProperties properties;

	private ThreadPoolTaskScheduler scheduler;

	private final List<ScheduledFuture<?>> tasks = new ArrayList<>();

	public IdempotencyMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			IdempotencyProperties properties) {
		this.ledger = ledger;
		this.reconciler = reconciler;
		this.properties = properties;
	}

	@Override
	public synchronized void start() {
		Duration heartbeat = this.properties.getHeartbeat().getInterval();
		checkHeartbeat(heartbeat);
		this.scheduler = new ThreadPoolTaskScheduler();
		this.scheduler.setThreadNamePrefix("idempotency-");
		this.scheduler.setPoolSize(4);
		// Housekeeping never keeps the JVM alive; on shutdown the context stops this and flushes.
		this.scheduler.setDaemon(true);
		this.scheduler.initialize();
		schedule("heartbeat", heartbeat, this.ledger::heartbeat);
		schedule("replay counts", this.properties.getReplayCounts().getFlushInterval(), this.ledger::flushReplayCounts);
		Reconciler reconciler = this.reconciler.getIfAvailable();
		if (reconciler != null) {
			schedule("reconciler", this.properties.getReconciler().getInterval(), reconciler::reconcile);
		}
		IdempotencyProperties.Retention retention = this.properties.getRetention();
		if (retention.getPeriod() != null) {
			schedule("retention", retention.getInterval(),
					() -> this.ledger.purgeSettled(retention.getPeriod(), retention.getBatchSize()));
		}
	}

	/** A call must beat at least twice within the shortest threshold, or a live call may be reconciled. */
	private void checkHeartbeat(Duration heartbeat) {
		IdempotencyProperties.Reconciler reconciler = this.properties.getReconciler();
		Map<String, Duration> thresholds = new LinkedHashMap<>();
		thresholds.put("idempotency.reconciler.stale-after", reconciler.getStaleAfter());
		reconciler.getStaleAfterByTool()
			.forEach((tool, after) -> thresholds.put("idempotency.reconciler.stale-after-by-tool." + tool, after));
		for (Map.Entry<String, Duration> threshold : thresholds.entrySet()) {
			if (heartbeat != null && threshold.getValue() != null
					&& heartbeat.multipliedBy(2).compareTo(threshold.getValue()) > 0) {
				throw new IllegalStateException("idempotency.heartbeat.interval (" + heartbeat + ") must be at most half"
						+ " of " + threshold.getKey() + " (" + threshold.getValue() + "), or calls that are still running"
						+ " could be reconciled: shorten the interval or lengthen the threshold");
			}
		}
	}

	private void schedule(String name, Duration interval, Runnable work) {
		if (interval == null || interval.isNegative() || interval.isZero()) {
			throw new IllegalStateException("The interval of the idempotency " + name + " must be more than zero, but was "
					+ interval);
		}
		this.tasks.add(this.scheduler.scheduleWithFixedDelay(() -> {
			try {
				work.run();
			}
			catch (RuntimeException ex) {
				logger.warn("The idempotency " + name + " task failed; it runs again in " + interval, ex);
			}
		}, interval));
	}

	@Override
	public synchronized void stop() {
		this.tasks.forEach((task) -> task.cancel(false));
		this.tasks.clear();
		if (this.scheduler != null) {
			this.scheduler.shutdown();
			this.scheduler = null;
		}
		this.ledger.close();
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

}
