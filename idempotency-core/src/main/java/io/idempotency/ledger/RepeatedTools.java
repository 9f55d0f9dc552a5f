package io.idempotency.ledger;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tools whose calls are mostly repeats now: for each tool, whether each of its last {@value #WINDOW} claims
 * on this instance found its key's row already there. While at least {@value #READ_FIRST_FROM} of them did (a
 * model looping on a tool, agents retrying after an outage), a call of that tool reads its key's row before it
 * claims: a repeat is then answered by that plain read, where the claim statement, which may insert, costs the
 * database about twice a read's work; a call that executes takes one round trip more, the read that finds
 * nothing. Which statement is sent first changes no answer: a read that finds nothing is followed by the claim.
 */
final class RepeatedTools {

	/** How many of a tool's latest claims are remembered: one bit each. */
	static final int WINDOW = Long.SIZE;

	/** How many of them must have found their row for the tool's calls to be read first. */
	static final int READ_FIRST_FROM = 48;

	/** Per tool, its latest claims, the newest in the lowest bit: 1 where the claim found the key's row. */
	private final ConcurrentHashMap<String, AtomicLong> latest = new ConcurrentHashMap<>();

	/** Whether a call of the tool reads its key's row before it claims. */
	boolean readFirst(String tool) {
		AtomicLong claims = this.latest.get(tool);
		return claims != null && Long.bitCount(claims.get()) >= READ_FIRST_FROM;
	}

	/** Remembers a claim of the tool's: whether it found its key's row there, or inserted it. */
	void record(String tool, boolean foundRow) {
		AtomicLong claims = this.latest.get(tool);
		if (claims == null) {
			claims = this.latest.computeIfAbsent(tool, (name) -> new AtomicLong());
		}
		long seen = claims.get();
		// A tool whose every remembered claim went the same way stays as it is without a write: its callers do
		// not contend for the memory of it.
		if (seen == (foundRow ? -1L : 0L)) {
			return;
		}
		long bit = foundRow ? 1L : 0L;
		claims.getAndUpdate((remembered) -> (remembered << 1) | bit);
	}

	/**
	 * Whether a claim found its key's row there and answers from it: every answer but a call to execute and the
	 * first wait for approval.
	 */
	static boolean foundRow(Claim claim) {
		return !(claim instanceof Claim.Won)
				&& !(claim instanceof Claim.AwaitingApproval awaiting && awaiting.first());
	}

}
