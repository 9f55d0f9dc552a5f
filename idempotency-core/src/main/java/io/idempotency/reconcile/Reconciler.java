package io.idempotency.reconcile;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ReconcileQueue;
import io.idempotency.ledger.ResultCodec;
import io.idempotency.ledger.LedgerEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;


/**
 * Resolves calls whose outcome is open: rows attempting or unknown for longer than their tool's threshold.
 * For each, it asks the tool's reconcile method "did this happen?" and records the answer: succeeded with
 * the result, or failed. A reconcile method that throws leaves the row for a later pass, after a back-off;
 * after the configured number of attempts the row waits for a human.
 *
 * <p>Run {@link #reconcile()} on a schedule, off the request path. Several instances may run it at once
 * on one database: the ledger leases each row to one of them.
 */
public final class Reconciler {

	private static final Logger logger = LoggerFactory.getLogger(Reconciler.class);

	/** How long a row that waits for a human is left alone before it is tried again. */
	static final Duration HUMAN_PAUSE = Duration.ofDays(365);

	/** The outcome of one pass. */
	public record Pass(int succeeded, int failed, int postponed, int awaitingHuman) {

		public int resolved() {
			return this.succeeded + this.failed;
		}

	}

	private final ReconcileQueue ledger;

	private final ReconcileMethods tools;

	private final ResultCodec results;

	/** The mapper that wrote the stored arguments, and so the one that reads them back. */
	private final JsonMapper argumentsMapper = IdempotencyKeys.argumentsMapper();

	private final ReconcilerSettings settings;

	private final AtomicLong awaitingHuman = new AtomicLong();

	private final AtomicLong reconciledSucceeded = new AtomicLong();

	private final AtomicLong reconciledFailed = new AtomicLong();

	public Reconciler(ReconcileQueue ledger, ReconcileMethods tools, JsonMapper resultMapper,
			ReconcilerSettings settings) {
		this.ledger = ledger;
		this.tools = tools;
		this.results = new ResultCodec(resultMapper, tools.maxResultBytes());
		this.settings = settings;
	}

	/**
	 * One pass over at most a batch of stale rows, of the tools this application can reconcile only: in a
	 * fleet where instances run different tools, an instance never takes another's rows.
	 */
	public Pass reconcile() {
		Set<String> reconcilable = this.tools.reconcilableToolNames();
		if (reconcilable.isEmpty()) {
			return new Pass(0, 0, 0, 0);
		}
		// Each threshold is applied by the database, on its clock.
		Map<String, Duration> byTool = new HashMap<>(this.settings.staleAfterByTool());
		byTool.keySet().retainAll(reconcilable);
		Set<String> atDefault = new HashSet<>(reconcilable);
		atDefault.removeAll(byTool.keySet());
		List<LedgerEntry> rows = new ArrayList<>(this.ledger.leaseStaleOf(atDefault, this.settings.staleAfter(),
				this.settings.batchSize(), this.settings.lease()));
		for (Map.Entry<String, Duration> tool : byTool.entrySet()) {
			if (rows.size() < this.settings.batchSize()) {
				rows.addAll(this.ledger.leaseStaleOf(Set.of(tool.getKey()), tool.getValue(),
						this.settings.batchSize() - rows.size(), this.settings.lease()));
			}
		}
		int succeeded = 0;
		int failed = 0;
		int postponed = 0;
		int human = 0;
		for (LedgerEntry row : rows) {
			Outcome outcome;
			try {
				outcome = reconcile(row);
			}
			catch (RuntimeException ex) {
				// The ledger could not record the answer: the lease runs out and a later pass takes the row.
				logger.atWarn()
					.addKeyValue("idempotency.tool", row.tool())
					.addKeyValue("idempotency.key", row.key().value())
					.addKeyValue("idempotency.run", row.runId())
					.log("reconcile.failed tool={} key={}: {}", row.tool(), row.key(), String.valueOf(ex));
				continue;
			}
			switch (outcome) {
				case SUCCEEDED -> succeeded++;
				case FAILED -> failed++;
				case POSTPONED -> postponed++;
				case AWAITING_HUMAN -> human++;
				case LEFT -> {
					// settled or lost meanwhile
				}
			}
		}
		return new Pass(succeeded, failed, postponed, human);
	}

	/** How many rows this reconciler has resolved as succeeded since it started. */
	public long reconciledSucceeded() {
		return this.reconciledSucceeded.get();
	}

	/** How many rows this reconciler has resolved as failed since it started. */
	public long reconciledFailed() {
		return this.reconciledFailed.get();
	}

	/** The settings it works with. */
	public ReconcilerSettings settings() {
		return this.settings;
	}

	/** How many rows this reconciler has handed to a human since it started. */
	public long awaitingHuman() {
		return this.awaitingHuman.get();
	}

	private enum Outcome {

		SUCCEEDED, FAILED, POSTPONED, AWAITING_HUMAN, LEFT

	}

	private Outcome reconcile(LedgerEntry row) {
		Optional<ReconcileMethod> tool = this.tools.find(row.tool());
		try {
			if (tool.isEmpty()) {
				throw new IllegalStateException("no tool named '" + row.tool() + "' with a reconcile method is registered");
			}
			Reconciliation<?> answer = ask(tool.get(), row);
			if (answer.tookEffect()) {
				String result = null;
				if (!tool.get().returnsNothing()) {
					ResultCodec.Storable storable = this.results.storable(answer.result(), this.ledger.redaction(), null,
							tool.get().sensitiveNames());
					if (storable.notStored() != null) {
						logger.atWarn()
							.addKeyValue("idempotency.tool", row.tool())
							.addKeyValue("idempotency.key", row.key().value())
							.addKeyValue("idempotency.run", row.runId())
							.log("reconcile.result_not_stored tool={} key={}: {}; a repeat is told the action was done,"
									+ " without its result", row.tool(), row.key(), storable.notStored());
					}
					result = storable.json();
				}
				return resolved(row, this.ledger.resolveSucceeded(row, result), "succeeded", Outcome.SUCCEEDED);
			}
			return resolved(row, this.ledger.resolveFailed(row, "Reconciled: the call did not take effect"), "failed",
					Outcome.FAILED);
		}
		catch (Throwable ex) {
			// Whatever one row's reconcile method throws, even an Error, stays with that row: the others of
			// the pass are still reconciled, and this one is retried, then handed to a human.
			return postpone(row, ex);
		}
	}

	private Reconciliation<?> ask(ReconcileMethod tool, LedgerEntry row) throws Exception {
		Reconciliation<?> answer = tool.question().ask(row.key(), this.argumentsMapper.readTree(row.arguments()));
		if (answer == null) {
			throw new IllegalStateException("the reconcile method of tool '" + row.tool() + "' returned null");
		}
		return answer;
	}

	private Outcome resolved(LedgerEntry row, boolean recorded, String outcome, Outcome counted) {
		if (!recorded) {
			logger.atInfo()
				.addKeyValue("idempotency.tool", row.tool())
				.addKeyValue("idempotency.key", row.key().value())
				.addKeyValue("idempotency.run", row.runId())
				.log("reconcile.skipped tool={} key={} reason=the row settled or its lease ended meanwhile", row.tool(),
						row.key());
			return Outcome.LEFT;
		}
		((counted == Outcome.SUCCEEDED) ? this.reconciledSucceeded : this.reconciledFailed).incrementAndGet();
		logger.atInfo()
			.addKeyValue("idempotency.tool", row.tool())
			.addKeyValue("idempotency.key", row.key().value())
			.addKeyValue("idempotency.run", row.runId())
			.addKeyValue("idempotency.status", outcome)
			.addKeyValue("idempotency.attempts", row.reconcileAttempts())
			.log("reconcile.resolved tool={} key={} run={} outcome={} attempts={}", row.tool(), row.key(), row.runId(),
					outcome, row.reconcileAttempts());
		return counted;
	}

	private Outcome postpone(LedgerEntry row, Throwable failure) {
		if (row.reconcileAttempts() >= this.settings.maxAttempts()) {
			this.ledger.postpone(row, HUMAN_PAUSE);
			this.awaitingHuman.incrementAndGet();
			logger.atError()
				.setCause(failure)
				.addKeyValue("idempotency.tool", row.tool())
				.addKeyValue("idempotency.key", row.key().value())
				.addKeyValue("idempotency.run", row.runId())
				.addKeyValue("idempotency.attempts", row.reconcileAttempts())
				.log("reconcile.needs_human tool={} key={} run={} attempts={}: could not tell whether the call took"
						+ " effect; settle the row by hand", row.tool(), row.key(), row.runId(), row.reconcileAttempts());
			return Outcome.AWAITING_HUMAN;
		}
		Duration pause = this.settings.backoff(row.reconcileAttempts());
		this.ledger.postpone(row, pause);
		logger.atWarn()
			.addKeyValue("idempotency.tool", row.tool())
			.addKeyValue("idempotency.key", row.key().value())
			.addKeyValue("idempotency.run", row.runId())
			.addKeyValue("idempotency.attempts", row.reconcileAttempts())
			.addKeyValue("idempotency.retry_in", pause.toString())
			.log("reconcile.postponed tool={} key={} attempts={} retry_in={}: {}", row.tool(), row.key(),
					row.reconcileAttempts(), pause, String.valueOf(failure));
		return Outcome.POSTPONED;
	}

}
