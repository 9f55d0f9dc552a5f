package io.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.ledger.JdbcLedger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.task.ThreadPoolTaskSchedulerBuilder;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.config.ScheduledTask;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;

/**
 * The ledger's background work: marking the calls this instance executes as still running, writing replay
 * counts, reconciling stale calls, expiring the calls nobody approved in time (at the reconciler's interval),
 * and deleting old settled calls. It runs on a scheduler built with Spring
 * Boot's {@link ThreadPoolTaskSchedulerBuilder} (so its customizers, task decorator and
 * {@code spring.task.scheduling.shutdown.*} apply), with {@value #THREADS} threads of its own named
 * {@code idempotency-}: each task has a thread, so a slow reconcile pass never holds up a heartbeat, and the
 * application's own scheduled tasks never delay them either. Its tasks are listed by
 * {@code /actuator/scheduledtasks} (it is a {@link ScheduledTaskHolder}). On shutdown it writes the outcomes that
 * wait behind their callers (before the heartbeat stops) and the last replay counts.
 * <p>
 * It stops in phase {@code SmartLifecycle.DEFAULT_PHASE - 4096}: after the web server's graceful shutdown, which
 * lets the requests in progress finish for up to {@code spring.lifecycle.timeout-per-shutdown-phase}, and the
 * web server itself (phases {@code DEFAULT_PHASE - 1024} and {@code - 2048}), and after listener containers in
 * the default phase or near it (JMS, RabbitMQ, Kafka). A call that those requests and messages still make is
 * beaten for, and an outcome written behind it is written, while the heartbeat runs. What stops later, or only
 * when its beans are destroyed (an MCP server on stdio, say), makes its last calls without a heartbeat; their
 * outcomes are written on their callers' path.
 */
public class IdempotencyMaintenance implements SmartLifecycle, ScheduledTaskHolder {

	private static final Logger logger = LoggerFactory.getLogger(IdempotencyMaintenance.class);

	/** One thread for each task. */
	static final int THREADS = 5;

	/** Started before, and stopped after, the web server and the other lifecycles that serve calls. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

	private final JdbcLedger ledger;

	private final ObjectProvider<Reconciler> reconciler;

	private final ObjectProvider<Approvals> approvals;

	private final IdempotencyProperties properties;

	private final ThreadPoolTaskSchedulerBuilder schedulers;

	private ThreadPoolTaskScheduler scheduler;

	private ScheduledTaskRegistrar tasks;

	/** Maintenance on a scheduler built by a default {@link ThreadPoolTaskSchedulerBuilder}. */
	public IdempotencyMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			IdempotencyProperties properties) {
		this(ledger, reconciler, properties, new ThreadPoolTaskSchedulerBuilder());
	}

	/**
	 * Maintenance on a scheduler built by the application's {@link ThreadPoolTaskSchedulerBuilder}; its pool
	 * size and thread name prefix are the maintenance's own.
	 */
	public IdempotencyMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			IdempotencyProperties properties, ThreadPoolTaskSchedulerBuilder schedulers) {
		this(ledger, reconciler, null, properties, schedulers);
	}

	/**
	 * Maintenance that also expires, at the reconciler's interval and while there is a reconciler, the calls
	 * that waited for approval longer than {@code idempotency.approval.expire-after}.
	 * @param approvals the approvals whose overdue calls to expire; {@code null} for none
	 */
	public IdempotencyMaintenance(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			ObjectProvider<Approvals> approvals, IdempotencyProperties properties,
			ThreadPoolTaskSchedulerBuilder schedulers) {
		this.ledger = ledger;
		this.reconciler = reconciler;
		this.approvals = approvals;
		this.properties = properties;
		this.schedulers = schedulers;
	}

	/** The longest heartbeat interval derived when none is set. */
	static final Duration DERIVED_HEARTBEAT_MAX = Duration.ofSeconds(20);

	/** The shortest heartbeat interval derived when none is set, however short a threshold. */
	static final Duration DERIVED_HEARTBEAT_MIN = Duration.ofMillis(100);

	@Override
	public synchronized void start() {
		// Every setting is checked before anything runs: a start that fails leaves no task scheduled.
		Duration heartbeat = IdempotencyProperties.positive("idempotency.heartbeat.interval",
				heartbeatInterval(this.properties));
		Duration flush = IdempotencyProperties.positive("idempotency.replay-counts.flush-interval",
				this.properties.getReplayCounts().getFlushInterval());
		Reconciler reconciler = this.reconciler.getIfAvailable();
		Duration reconcile = (reconciler != null) ? IdempotencyProperties.positive("idempotency.reconciler.interval",
				this.properties.getReconciler().getInterval()) : null;
		IdempotencyProperties.Retention retention = this.properties.getRetention();
		checkRetention(retention);
		Duration purge = (retention.getPeriod() != null)
				? IdempotencyProperties.positive("idempotency.retention.interval", retention.getInterval()) : null;
		// Housekeeping never keeps the JVM alive; on shutdown the context stops this and flushes.
		this.scheduler = this.schedulers.poolSize(THREADS)
			.threadNamePrefix("idempotency-")
			.additionalCustomizers((scheduler) -> scheduler.setDaemon(true))
			.build();
		this.scheduler.initialize();
		this.tasks = new ScheduledTaskRegistrar();
		this.tasks.setTaskScheduler(this.scheduler);
		schedule("heartbeat", heartbeat, this.ledger::heartbeat);
		schedule("replay counts", flush, this.ledger::flushReplayCounts);
		if (reconciler != null) {
			schedule("reconciler", reconcile, reconciler::reconcile);
			Approvals approvals = (this.approvals != null) ? this.approvals.getIfAvailable() : null;
			if (approvals != null) {
				schedule("approval expiry", reconcile, () -> expireOverdue(approvals));
			}
		}
		if (purge != null) {
			schedule("retention", purge, () -> this.ledger.purgeSettled(retention.getPeriod(), retention.getBatchSize()));
		}
		this.tasks.afterPropertiesSet();
	}

	/**
	 * The heartbeat interval: the one set, which must beat at least twice within the shortest threshold (or
	 * a live call may be reconciled), else one derived from the thresholds: a third of the shortest, at most
	 * {@link #DERIVED_HEARTBEAT_MAX} and at least {@link #DERIVED_HEARTBEAT_MIN}. A threshold below three
	 * times that least interval ("reconcile at once", in tests) is allowed: calls that run longer than it
	 * may be reconciled while they run.
	 */
	static Duration heartbeatInterval(IdempotencyProperties properties) {
		IdempotencyProperties.Reconciler reconciler = properties.getReconciler();
		Map<String, Duration> thresholds = new LinkedHashMap<>();
		thresholds.put("idempotency.reconciler.stale-after", reconciler.getStaleAfter());
		reconciler.getStaleAfterByTool()
			.forEach((tool, after) -> thresholds.put("idempotency.reconciler.stale-after-by-tool." + tool, after));
		Duration set = properties.getHeartbeat().getInterval();
		if (set != null) {
			for (Map.Entry<String, Duration> threshold : thresholds.entrySet()) {
				if (threshold.getValue() != null && set.multipliedBy(2).compareTo(threshold.getValue()) > 0) {
					throw new IllegalStateException("idempotency.heartbeat.interval (" + set + ") must be at most half"
							+ " of " + threshold.getKey() + " (" + threshold.getValue() + "), or calls that are still"
							+ " running could be reconciled: shorten the interval, lengthen the threshold, or leave the"
							+ " interval unset to have it derived from the thresholds");
				}
			}
			return set;
		}
		Duration derived = DERIVED_HEARTBEAT_MAX;
		for (Duration threshold : thresholds.values()) {
			if (threshold != null && threshold.dividedBy(3).compareTo(derived) < 0) {
				derived = threshold.dividedBy(3);
			}
		}
		return (derived.compareTo(DERIVED_HEARTBEAT_MIN) < 0) ? DERIVED_HEARTBEAT_MIN : derived;
	}

	/** Settled rows answer repeats: a period of nothing would delete each as it settles, and repeats would run. */
	private static void checkRetention(IdempotencyProperties.Retention retention) {
		Duration period = retention.getPeriod();
		if (period != null && (period.isZero() || period.isNegative())) {
			throw new IllegalStateException("idempotency.retention.period must be more than zero, but was " + period
					+ ": settled calls answer their repeats, and deleting them at once would let a repeat execute again."
					+ " Leave it empty to keep them forever");
		}
		if (period != null) {
			IdempotencyProperties.positive("idempotency.retention.period", period);
		}
		if (retention.getBatchSize() < 1) {
			throw new IllegalStateException("idempotency.retention.batch-size must be at least 1, but was "
					+ retention.getBatchSize());
		}
	}

	/** Expires the calls nobody approved in time, each logged as the reconciler logs what it resolves. */
	private static void expireOverdue(Approvals approvals) {
		for (ApprovalRequest expired : approvals.expireOverdue()) {
			logger.atInfo()
				.addKeyValue("idempotency.tool", expired.entry().tool())
				.addKeyValue("idempotency.key", expired.entry().key().value())
				.addKeyValue("idempotency.run", expired.entry().runId())
				.addKeyValue("idempotency.status", "expired")
				.log("approval.expired tool={} key={} run={}: nobody approved it within {}", expired.entry().tool(),
						expired.entry().key(), expired.entry().runId(), approvals.expireAfter());
		}
	}

	private void schedule(String name, Duration interval, Runnable work) {
		this.tasks.addFixedDelayTask(new Task(name, interval, work), interval);
	}

	/** The tasks scheduled while it runs, as {@code /actuator/scheduledtasks} lists them. */
	@Override
	public synchronized Set<ScheduledTask> getScheduledTasks() {
		return (this.tasks != null) ? this.tasks.getScheduledTasks() : Set.of();
	}

	@Override
	public synchronized void stop() {
		// Outcomes written behind their callers are written while the heartbeat still beats for their rows, so
		// that no reconciler elsewhere takes a row whose outcome is only late.
		this.ledger.writePendingOutcomes();
		if (this.tasks != null) {
			this.tasks.destroy();
			this.tasks = null;
		}
		if (this.scheduler != null) {
			this.scheduler.shutdown();
			this.scheduler = null;
		}
		this.ledger.close();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public synchronized boolean isRunning() {
		return this.scheduler != null;
	}

	/** One of the maintenance's tasks, named as {@code /actuator/scheduledtasks} shows it; a failure is logged. */
	private record Task(String name, Duration interval, Runnable work) implements Runnable {

		@Override
		public void run() {
			try {
				this.work.run();
			}
			catch (RuntimeException ex) {
				logger.atWarn()
					.setCause(ex)
					.addKeyValue("idempotency.task", this.name)
					.addKeyValue("idempotency.retry_in", this.interval.toString())
					.log("The idempotency {} task failed; it runs again in {}", this.name, this.interval);
			}
		}

		@Override
		public String toString() {
			return "idempotency " + this.name;
		}

	}

}
