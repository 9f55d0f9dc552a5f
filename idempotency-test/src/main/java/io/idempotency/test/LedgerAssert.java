package io.idempotency.test;

import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.LedgerEntry;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the calls a ledger holds: start with {@link LedgerAssertions#assertThatLedger(CallLedger)}.
 * Each assertion reads the ledger as it is when the assertion runs.
 */
public final class LedgerAssert extends AbstractAssert<LedgerAssert, CallLedger> {

	LedgerAssert(CallLedger ledger) {
		super(ledger, LedgerAssert.class);
	}

	/** Verifies that the ledger holds no call: nothing was executed. */
	public LedgerAssert hasNoCalls() {
		List<LedgerEntry> calls = calls();
		if (!calls.isEmpty()) {
			failWithMessage("Expected the ledger to hold no call, but it holds %d:%n%s", calls.size(), describe(calls));
		}
		return this;
	}

	/**
	 * Verifies how many times a tool executed: how many calls of it the ledger holds, in every run.
	 * @param tool the tool's name, as the model calls it
	 * @param times how many executions are expected
	 */
	public LedgerAssert hasExecuted(String tool, int times) {
		List<LedgerEntry> calls = callsOf(tool);
		if (calls.size() != times) {
			failWithMessage("Expected %s to have executed %d time(s), but the ledger holds %d call(s) of it:%n%s", tool,
					times, calls.size(), describe(calls()));
		}
		return this;
	}

	/**
	 * Verifies that a tool executed exactly once in every run together.
	 * @param tool the tool's name, as the model calls it
	 */
	public LedgerAssert hasExecutedOnce(String tool) {
		return hasExecuted(tool, 1);
	}

	/**
	 * The one call of a tool that the ledger holds, to assert on; fails if it holds none or several.
	 * @param tool the tool's name, as the model calls it
	 */
	public CallAssert call(String tool) {
		return onlyCall(tool + " in any run", (call) -> call.tool().equals(tool));
	}

	/**
	 * The one call of a tool in a run, to assert on; fails if the run holds none or several.
	 * @param tool the tool's name, as the model calls it
	 * @param runId the run's id
	 */
	public CallAssert call(String tool, String runId) {
		return onlyCall(tool + " in run " + runId,
				(call) -> call.tool().equals(tool) && call.runId().equals(runId));
	}

	private CallAssert onlyCall(String which, Predicate<LedgerEntry> matches) {
		List<LedgerEntry> calls = calls();
		List<LedgerEntry> matching = calls.stream().filter(matches).toList();
		if (matching.size() != 1) {
			failWithMessage("Expected one call of %s, but the ledger holds %d of them; all its calls:%n%s", which,
					matching.size(), describe(calls));
		}
		return new CallAssert(matching.get(0));
	}

	private List<LedgerEntry> callsOf(String tool) {
		Objects.requireNonNull(tool, "tool");
		return calls().stream().filter((call) -> call.tool().equals(tool)).toList();
	}

	private List<LedgerEntry> calls() {
		isNotNull();
		return LedgerCalls.of(this.actual);
	}

	private static String describe(List<LedgerEntry> calls) {
		if (calls.isEmpty()) {
			return "  (no call)";
		}
		return calls.stream().map((call) -> "  " + CallAssert.describe(call)).collect(Collectors.joining("\n"));
	}

}
