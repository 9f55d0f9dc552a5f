package io.idempotency.advice;

import java.time.Duration;
import java.util.Optional;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;

/**
 * A repeat that found its call still running waits, within its tool's bound, for that call's outcome: a twin
 * made at the same moment (a model's two identical calls executed in parallel) is then answered from the
 * result a moment later, instead of being told the call is in progress. It reads the call's row again and
 * again, with a pause that doubles up to a limit, and holds no connection or lock while it pauses. A row
 * that becomes unknown, or is still running at the bound, stays in progress.
 */
final class RunningCallWait {

	private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(5).toNanos();

	private static final long LONGEST_PAUSE_NANOS = Duration.ofMillis(200).toNanos();

	private RunningCallWait() {
	}

	/** The answer to the claim once its call settled, or the claim itself if it did not within the bound. */
	static Claim awaitOutcome(CallLedger ledger, Claim.InProgress running, Duration bound) {
		long deadline = System.nanoTime() + bound.toNanos();
		long pause = FIRST_PAUSE_NANOS;
		Claim.InProgress current = running;
		while (current.entry().status() == LedgerStatus.ATTEMPTING) {
			long left = deadline - System.nanoTime();
			if (left <= 0 || !Pause.of(Math.min(pause, left))) {
				return current;
			}
			pause = Math.min(pause * 2, LONGEST_PAUSE_NANOS);
			Optional<LedgerEntry> row;
			try {
				row = ledger.find(running.key());
			}
			catch (RuntimeException ex) {
				// The wait is a courtesy: a row that cannot be read leaves the call in progress, as it is.
				return current;
			}
			if (row.isEmpty()) {
				// Gone (purged, or deleted by hand): never a reason to execute; the call stays in progress.
				return current;
			}
			LedgerEntry entry = row.get();
			if (!java.util.Objects.equals(entry.userId(), running.entry().userId()) || entry.id() != running.entry().id()) {
				// Another row under the key (the first purged, the key claimed anew): never answered from it.
				return current;
			}
			if (entry.status() == LedgerStatus.SUCCEEDED) {
				return new Claim.Replay(entry);
			}
			if (entry.status() == LedgerStatus.FAILED) {
				return new Claim.PreviousAttemptFailed(entry);
			}
			current = new Claim.InProgress(entry);
		}
		return current;
	}

}
