package io.idempotency.advice;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;

/**
 * A repeat that found its call still running waits, within its tool's bound, for that call's outcome: a twin
 * made at the same moment (a model's two identical calls executed in parallel) is then answered from the
 * result a moment later, instead of being told the call is in progress. It reads the call's row again and
 * again (as a repeat made then would be answered: from an outcome that waits here to be written behind its
 * caller, else from the table), with a pause that doubles up to a limit, and holds no connection or lock while
 * it pauses (but a synchronous transactional tool's repeat, whose claim's transaction stays open meanwhile); an
 * asynchronous call's repeat holds no thread either. A row that becomes unknown, or is still running at the
 * bound, stays in progress.
 */
final class RunningCallWait {

	private static final long FIRST_PAUSE_NANOS = Duration.ofMillis(5).toNanos();

	private static final long LONGEST_PAUSE_NANOS = Duration.ofMillis(200).toNanos();

	private final CallLedger ledger;

	private final Claim.InProgress running;

	private final long deadline;

	private long pause = FIRST_PAUSE_NANOS;

	private Claim.InProgress current;

	private RunningCallWait(CallLedger ledger, Claim.InProgress running, Duration bound) {
		this.ledger = ledger;
		this.running = running;
		this.current = running;
		this.deadline = System.nanoTime() + bound.toNanos();
	}

	/** The answer to the claim once its call settled, or the claim itself if it did not within the bound. */
	static Claim awaitOutcome(CallLedger ledger, Claim.InProgress running, Duration bound) {
		RunningCallWait wait = new RunningCallWait(ledger, running, bound);
		while (true) {
			long pause = wait.nextPause();
			if (pause <= 0 || !Pause.of(pause)) {
				return wait.current;
			}
			Claim settled = wait.poll();
			if (settled != null) {
				return settled;
			}
		}
	}

	/**
	 * The same wait, for an asynchronous call: each read of the row is made on {@code executor} once its pause is
	 * over, and no thread waits in between.
	 */
	static CompletionStage<Claim> awaitOutcome(CallLedger ledger, Claim.InProgress running, Duration bound,
			Executor executor) {
		CompletableFuture<Claim> settled = new CompletableFuture<>();
		new RunningCallWait(ledger, running, bound).pollLater(settled, executor);
		return settled;
	}

	private void pollLater(CompletableFuture<Claim> settled, Executor executor) {
		long pause = nextPause();
		if (pause <= 0) {
			settled.complete(this.current);
			return;
		}
		Executor guarded = (task) -> {
			try {
				executor.execute(task);
			}
			catch (RuntimeException ex) {
				// No thread to read the row on: the call stays in progress.
				settled.complete(this.current);
			}
		};
		CompletableFuture.delayedExecutor(pause, TimeUnit.NANOSECONDS, guarded).execute(() -> {
			try {
				Claim outcome = poll();
				if (outcome != null) {
					settled.complete(outcome);
				}
				else {
					pollLater(settled, executor);
				}
			}
			catch (RuntimeException | Error ex) {
				settled.completeExceptionally(ex);
			}
		});
	}

	/** The pause before the next read of the row; zero where the wait is over. */
	private long nextPause() {
		if (this.current.entry().status() != LedgerStatus.ATTEMPTING) {
			return 0;
		}
		long left = this.deadline - System.nanoTime();
		if (left <= 0) {
			return 0;
		}
		long next = Math.min(this.pause, left);
		this.pause = Math.min(this.pause * 2, LONGEST_PAUSE_NANOS);
		return next;
	}

	/** Reads the row again: the answer where the wait is over, {@code null} where the call still runs. */
	private Claim poll() {
		Optional<LedgerEntry> row;
		try {
			row = this.ledger.findLatest(this.running.key());
		}
		catch (RuntimeException ex) {
			// The wait is a courtesy: a row that cannot be read leaves the call in progress, as it is.
			return this.current;
		}
		if (row.isEmpty()) {
			// Gone (purged, or deleted by hand): never a reason to execute; the call stays in progress.
			return this.current;
		}
		LedgerEntry entry = row.get();
		if (!Objects.equals(entry.userId(), this.running.entry().userId()) || entry.id() != this.running.entry().id()) {
			// Another row under the key (the first purged, the key claimed anew): never answered from it.
			return this.current;
		}
		if (entry.status() == LedgerStatus.SUCCEEDED) {
			return new Claim.Replay(entry);
		}
		if (entry.status() == LedgerStatus.FAILED) {
			return new Claim.PreviousAttemptFailed(entry);
		}
		this.current = new Claim.InProgress(entry);
		return null;
	}

}
