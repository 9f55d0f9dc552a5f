package io.idempotency.sample;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.idempotency.ledger.CallRecord;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.sample.web.LedgerView;

/**
 * What the demo waits for in the ledger, running the reconciler meanwhile: a call it reconciled, or one it handed
 * to a person.
 */
final class LedgerWaits {

	private final LedgerView ledger;

	private final Clock clock;

	LedgerWaits(LedgerView ledger, Clock clock) {
		this.ledger = ledger;
		this.clock = clock;
	}

	Optional<LedgerView.Row> awaitRow(String runId, String tool, Reconciler reconciler, Duration patience) {
		Instant deadline = this.clock.instant().plus(patience);
		while (this.clock.instant().isBefore(deadline)) {
			reconciler.reconcile();
			Optional<LedgerView.Row> row = this.ledger.ofRun(runId)
				.stream()
				.filter((candidate) -> candidate.tool().equals(tool) && candidate.reconciled())
				.findFirst();
			if (row.isPresent()) {
				return row;
			}
			pause();
		}
		return Optional.empty();
	}

	Optional<CallRecord> awaitHuman(String runId, Reconciler reconciler, Settlements settlements,
			Duration patience) {
		Instant deadline = this.clock.instant().plus(patience);
		while (this.clock.instant().isBefore(deadline)) {
			reconciler.reconcile();
			CallFilter filter = CallFilter.all().tool("reserve_stock").limit(CallFilter.MAX_LIMIT);
			while (filter != null) {
				Settlements.Page page = settlements.awaitingHuman(filter);
				Optional<CallRecord> call = page.calls()
					.stream()
					.filter((candidate) -> runId.equals(candidate.entry().runId()))
					.findFirst();
				if (call.isPresent()) {
					return call;
				}
				filter = page.next();
			}
			pause();
		}
		return Optional.empty();
	}

	private static void pause() {
		try {
			TimeUnit.MILLISECONDS.sleep(500);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
