package io.idempotency.ledger;

import java.time.Duration;
import java.util.Objects;

/**
 * Whether a ledger answers a call's caller before its outcome is written, and how: an opt-in that takes the
 * outcome's commit off the caller's path. The claim is still committed before the effect starts; once the
 * effect returns, its outcome waits in memory and is written with others in one batch, once the oldest of them
 * has waited {@code delay} (sooner when {@code batchSize} outcomes wait) and the batch before it is written.
 * Meanwhile:
 * <ul>
 * <li>a repeat on this instance is answered from the outcome waiting here (a success replayed, a failure
 * answered as one), while the table's row, as {@link JdbcLedger#find} reads it, is still attempting;</li>
 * <li>a repeat on another instance finds the row still attempting: it is told the call is in progress, or waits
 * for the outcome where the tool waits for running calls;</li>
 * <li>the row is still beaten for as running, so no reconciler takes it.</li>
 * </ul>
 * A crash in that window loses the outcome, not the claim: the row stays attempting, stops beating, and the
 * reconciler settles it by asking the tool, as after a crash during the call. When {@code capacity} outcomes
 * wait, the next one is written on its caller's thread, as without write-behind: never dropped. Closing the
 * ledger writes every outcome still waiting. Calls in the caller's transaction (transactional tools) never
 * wait: their outcome commits with their transaction.
 * <p>
 * A queued outcome's {@code record...} returns {@code true}: a late completion is logged and counted when it is
 * written, and a result the database refuses is then recorded as done without it (the reason names no part of
 * the database's message, which may quote the result).
 * @param capacity how many outcomes may wait at most; {@code 0} turns write-behind off
 * @param batchSize how many outcomes one batch writes at most
 * @param delay how long the oldest outcome of a batch waits for others to be written with it
 */
public record OutcomeWriteBehind(int capacity, int batchSize, Duration delay) {

	/** What a ledger does unless told otherwise: every outcome is written before its caller is answered. */
	public static OutcomeWriteBehind off() {
		return new OutcomeWriteBehind(0, 1, Duration.ZERO);
	}

	public OutcomeWriteBehind {
		if (capacity < 0) {
			throw new IllegalArgumentException("capacity must not be negative, but was " + capacity);
		}
		if (batchSize < 1) {
			throw new IllegalArgumentException("batchSize must be at least 1, but was " + batchSize);
		}
		Objects.requireNonNull(delay, "delay");
		if (delay.isNegative()) {
			throw new IllegalArgumentException("delay must not be negative, but was " + delay);
		}
	}

	/** Whether outcomes are written behind their callers at all. */
	public boolean enabled() {
		return this.capacity > 0;
	}

}
