package io.idempotency.test;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;

/**
 * Assertions on the calls a ledger holds, for an application's tests: how many times a tool executed, and
 * what became of a call (its outcome, its result, how many repeats were answered from it).
 *
 * <pre class="code">
 * assertThatLedger(ledger).hasExecuted("open_ticket", 1);
 * assertThatLedger(ledger).call("open_ticket").succeeded().wasReplayed(2);
 * </pre>
 *
 * <p>Each call the ledger holds is one execution: a call is recorded when its claim wins, before the tool
 * runs, and a repeat answered from it adds none. The assertions read an {@link InMemoryLedger} or a
 * {@link JdbcLedger} (whose replay counts are flushed first, so that every repeat answered so far is counted).
 */
public final class LedgerAssertions {

	private LedgerAssertions() {
	}

	/**
	 * Assertions on the calls this ledger holds now.
	 * @param ledger an {@link InMemoryLedger} or a {@link JdbcLedger}
	 * @return assertions on its calls
	 */
	public static LedgerAssert assertThatLedger(CallLedger ledger) {
		return new LedgerAssert(ledger);
	}

}
