package io.idempotency.ledger;

import java.time.Duration;

/**
 * How often the ledger answered a call without executing it, over a window of time. A rate of exactly
 * zero over real traffic means the mechanism is not working: timeouts and retries always happen.
 *
 * @param window the window, ending now by the database clock
 * @param executions calls claimed (one per row started in the window)
 * @param replays later calls answered from those rows without executing
 */
public record ReplayStatistics(Duration window, long executions, long replays) {

	/** All calls seen: executions and replays. */
	public long calls() {
		return this.executions + this.replays;
	}

	/** Replays as a fraction of all calls, from 0 to 1; 0 when there were no calls. */
	public double replayRate() {
		return (calls() == 0) ? 0 : (double) this.replays / calls();
	}

}
