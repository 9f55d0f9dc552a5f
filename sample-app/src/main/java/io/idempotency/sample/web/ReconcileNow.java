package io.idempotency.sample.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;

/**
 * The page's "Run the reconciler now": passes of the reconciler until each call open when it was pressed is
 * settled, tried, or still running. The reconciler takes a call only once it is stale
 * ({@code idempotency.reconciler.stale-after} after its last sign of life), so that it never resolves a call
 * still in progress; the library offers no pass that takes younger calls. So a call that timed out a moment
 * ago is waited for, up to that threshold and one interval more, rather than left as it was. Then it expires the
 * calls that waited for a person's approval longer than allowed.
 */
public final class ReconcileNow {

	/**
	 * One call open when the button was pressed, after the passes.
	 *
	 * @param status {@code succeeded} or {@code failed} once settled; {@code unknown} or {@code attempting} if not
	 */
	public record Call(String tool, String runId, String status, int attempts, String told) {
	}

	/**
	 * What the passes did, and what the page says about it.
	 *
	 * @param approvalsExpired how many calls that waited for approval longer than allowed were expired
	 */
	public record Result(int resolved, int postponed, int awaitingHuman, int approvalsExpired, List<Call> calls,
			String message) {
	}

	private static final Duration POLL = Duration.ofMillis(250);

	private final Reconciler reconciler;

	private final Settlements settlements;

	private final Duration patience;

	private final Clock clock;

	private final Approvals approvals;

	/** @param approvals what expires the calls nobody approved in time; {@code null} where there are none */
	ReconcileNow(Reconciler reconciler, Settlements settlements, Approvals approvals, Duration interval, Clock clock) {
		this.reconciler = reconciler;
		this.approvals = approvals;
		this.clock = clock;
		this.settlements = settlements;
		this.patience = reconciler.settings().staleAfter().plus(interval).plusSeconds(1);
	}

	Result run() {
		List<CallRecord> open = new ArrayList<>();
		CallFilter filter = CallFilter.all().limit(CallFilter.MAX_LIMIT);
		int maxAttempts = this.reconciler.settings().maxAttempts();
		while (filter != null) {
			Settlements.Page page = this.settlements.unsettled(filter);
			page.calls().stream().filter((call) -> call.entry().reconcileAttempts() < maxAttempts).forEach(open::add);
			filter = page.next();
		}
		int resolved = 0;
		int postponed = 0;
		int human = 0;
		Instant deadline = this.clock.instant().plus(this.patience);
		List<CallRecord> waiting = open;
		while (true) {
			Reconciler.Pass pass = this.reconciler.reconcile();
			resolved += pass.resolved();
			postponed += pass.postponed();
			human += pass.awaitingHuman();
			waiting = waiting.stream().filter(this::untouched).toList();
			if (waiting.isEmpty() || !this.clock.instant().isBefore(deadline) || !pause()) {
				break;
			}
		}
		List<Call> calls = open.stream().map(this::now).toList();
		int expired = (this.approvals != null) ? this.approvals.expireOverdue().size() : 0;
		String message = message(calls) + ((expired > 0) ? " " + expired + " call(s) nobody approved in "
				+ this.approvals.expireAfter().toHours() + " h expired." : "");
		return new Result(resolved, postponed, human, expired, calls, message);
	}

	/** Neither settled nor tried since the button was pressed. */
	private boolean untouched(CallRecord before) {
		Optional<CallRecord> now = this.settlements.find(before.entry().key());
		return now.isPresent() && now.get().entry().isUnsettled()
				&& now.get().entry().reconcileAttempts() == before.entry().reconcileAttempts();
	}

	private Call now(CallRecord before) {
		IdempotencyKey key = before.entry().key();
		LedgerEntry row = this.settlements.find(key).map(CallRecord::entry).orElse(before.entry());
		String status = row.status().name().toLowerCase(Locale.ROOT);
		String told;
		if (!row.isUnsettled()) {
			told = "settled as " + status;
		}
		else if (row.reconcileAttempts() > before.entry().reconcileAttempts()) {
			told = "tried: the tool could not tell yet; tried again after a pause";
		}
		else {
			told = "still running: the reconciler takes a call only once nothing has been heard of it for "
					+ seconds(this.reconciler.settings().staleAfter());
		}
		return new Call(row.tool(), row.runId(), status, row.reconcileAttempts(), told);
	}

	private static String message(List<Call> calls) {
		if (calls.isEmpty()) {
			return "No call was open: nothing to reconcile.";
		}
		List<String> lines = calls.stream().map((call) -> call.tool() + " of run " + call.runId() + ": " + call.told()).toList();
		return String.join("; ", lines) + ".";
	}

	private static String seconds(Duration duration) {
		return (duration.toMillis() % 1000 == 0) ? duration.toSeconds() + " s" : duration.toMillis() + " ms";
	}

	private static boolean pause() {
		try {
			TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
