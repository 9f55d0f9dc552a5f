package io.idempotency.reconcile;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.SettlementQueue;
import io.idempotency.reconcile.SettlementRefusedException.Reason;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an operator does with the calls the reconciler could not settle: lists them, and settles each by hand.
 * A call waits for a human once the reconciler has tried it {@link ReconcilerSettings#maxAttempts()} times
 * without learning whether it took effect; no reconciler takes it again for a year, unless it is settled.
 *
 * <p>A settlement names the call by its key and records who settled it, when (the database clock) and why, in
 * the ledger row: as {@linkplain #settleSucceeded succeeded} with the result the call would have returned,
 * stored as the advice stores a result; as {@linkplain #settleFailed failed}, the reason being the error a
 * repeat of the call is answered with; or {@linkplain #retry sent back to the reconciler} for one more try at
 * its next pass. A repeat of the call then reads the settled outcome, as after a reconciler's resolution.
 *
 * <p>A settlement is refused with a {@link SettlementRefusedException}, and nothing written, when the key is
 * unknown, the call is settled already or not waiting for a human, a reconciler holds it at that moment, who or
 * why is missing or is text the ledger does not store (U+0000 or another control character, a name longer
 * than 255 characters), or the result does not bind to the tool's result type. Each write is conditional on
 * the row still waiting: of two operators settling one call at once, one wins and the other is told it was
 * settled. A result is read with its numbers exact ({@code 12.50} stays {@code 12.50}, never through
 * {@code double}), and stored JSON is handed back as the ledger holds it.
 *
 * <p>It counts the settlements it wrote, by kind, and those it refused, by reason, since it started
 * ({@link #settledSucceeded()}, {@link #refused(Reason)}, ...): the starter's metrics read them.
 *
 * <p>Thread-safe. Build it with the reconciler's tools, result mapper and settings, so that it calls waiting
 * for a human what the reconciler hands to one.
 */
public final class Settlements {

	/** One page of calls, and the filter of the next page, if there may be one. */
	public record Page(List<CallRecord> calls, CallFilter next) {

		public Page {
			calls = List.copyOf(calls);
		}

		/** Whether there may be more calls after this page: then {@link #next()} reads them. */
		public boolean hasMore() {
			return this.next != null;
		}

	}

	private final CallsToSettle calls;

	private final SettlementChecks checks;

	private final SettlementWrites writes;

	private final AtomicLong settledSucceeded = new AtomicLong();

	private final AtomicLong settledFailed = new AtomicLong();

	private final AtomicLong sentBack = new AtomicLong();

	private final Map<Reason, AtomicLong> refused = new EnumMap<>(Reason.class);

	/**
	 * @param ledger the ledger ({@code JdbcLedger})
	 * @param tools the application's tools ({@code IdempotentToolRegistry}): the result types results bind to
	 * @param resultMapper the mapper the advice stores results with
	 * @param settings the reconciler's settings: after its {@code maxAttempts} a call waits for a human
	 */
	public Settlements(SettlementQueue ledger, ReconcileMethods tools, JsonMapper resultMapper,
			ReconcilerSettings settings) {
		Objects.requireNonNull(ledger, "ledger");
		SettledResults results = new SettledResults(Objects.requireNonNull(tools, "tools"),
				Objects.requireNonNull(resultMapper, "resultMapper"));
		int maxAttempts = settings.maxAttempts();
		this.calls = new CallsToSettle(ledger, maxAttempts);
		this.checks = new SettlementChecks(this.calls, results, ledger, maxAttempts);
		this.writes = new SettlementWrites(ledger, this.calls, this.checks, maxAttempts);
		for (Reason reason : Reason.values()) {
			this.refused.put(reason, new AtomicLong());
		}
	}

	/** How many calls this instance settled as succeeded since it started. */
	public long settledSucceeded() {
		return this.settledSucceeded.get();
	}

	/** How many calls this instance settled as failed since it started. */
	public long settledFailed() {
		return this.settledFailed.get();
	}

	/** How many calls this instance sent back to the reconciler since it started. */
	public long sentBack() {
		return this.sentBack.get();
	}

	/** How many settlements this instance refused since it started, for this reason. */
	public long refused(Reason reason) {
		return this.refused.get(Objects.requireNonNull(reason, "reason")).get();
	}

	/**
	 * One page of the calls that wait for a human, in the order of their rows' ids: tool, run, user, arguments
	 * as stored (redacted), error, attempts and age of each.
	 */
	public Page awaitingHuman(CallFilter filter) {
		return this.calls.awaitingHuman(filter);
	}

	/**
	 * One page of every unsettled call (attempting or unknown), waiting for a human or not, in the order of
	 * their rows' ids.
	 */
	public Page unsettled(CallFilter filter) {
		return this.calls.unsettled(filter);
	}

	/** The call of a key as an operator reads it, settled or not, if the ledger has it. */
	public Optional<CallRecord> find(IdempotencyKey key) {
		return this.calls.find(Objects.requireNonNull(key, "key"));
	}

	/**
	 * Settles a call that waits for a human as succeeded: it took effect, and a repeat is replayed with this
	 * result. The result is checked against the tool's result type where this application has the tool, and
	 * stored as the advice stores one.
	 * @param resultJson the result as JSON ({@code null} for a tool that returns nothing)
	 * @param operator who settles it
	 * @param reason why
	 * @return the settled call
	 * @throws SettlementRefusedException if the settlement is refused; nothing was written
	 */
	public CallRecord settleSucceeded(IdempotencyKey key, String resultJson, String operator, String reason) {
		return counted(this.settledSucceeded, () -> {
			CallRecord call = this.checks.waiting(key, operator, reason);
			String stored = this.checks.storableResult(call, resultJson);
			return this.writes.succeeded(key, call, stored, operator, reason);
		});
	}

	/**
	 * Settles a call that waits for a human as failed: it did not take effect, and a repeat is answered as a
	 * previous failure, with the reason as its error.
	 * @param operator who settles it
	 * @param reason why: the error a repeat is answered with
	 * @return the settled call
	 * @throws SettlementRefusedException if the settlement is refused; nothing was written
	 */
	public CallRecord settleFailed(IdempotencyKey key, String operator, String reason) {
		return counted(this.settledFailed, () -> {
			CallRecord call = this.checks.waiting(key, operator, reason);
			return this.writes.failed(key, call, operator, reason);
		});
	}

	/**
	 * Sends a call that waits for a human back to the reconciler, which asks the tool's reconcile method again
	 * at its next pass: once more, after which a call it still cannot settle waits for a human again.
	 * @param operator who sends it back
	 * @param reason why (the system it depends on is back, say)
	 * @return the call, unsettled, for the reconciler
	 * @throws SettlementRefusedException if it is refused; nothing was written
	 */
	public CallRecord retry(IdempotencyKey key, String operator, String reason) {
		return counted(this.sentBack, () -> {
			CallRecord call = this.checks.waiting(key, operator, reason);
			return this.writes.sentBack(key, call, operator, reason);
		});
	}

	/** The settlement, counted as written or as refused for its reason. */
	private CallRecord counted(AtomicLong written, Supplier<CallRecord> settlement) {
		CallRecord settled;
		try {
			settled = settlement.get();
		}
		catch (SettlementRefusedException ex) {
			this.refused.get(ex.reason()).incrementAndGet();
			throw ex;
		}
		written.incrementAndGet();
		return settled;
	}

}
