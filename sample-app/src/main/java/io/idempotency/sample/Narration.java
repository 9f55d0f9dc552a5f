package io.idempotency.sample;

import java.io.PrintStream;
import java.util.function.BooleanSupplier;

import io.idempotency.sample.agent.RunTranscript;

/**
 * How the demo tells its scenarios: their titles, what the user asked, each call and what the model read, and
 * each expectation, held or failed, counted.
 */
final class Narration {

	private PrintStream out = System.out;

	private int failed;

	/** Narrates to this stream from now on. */
	void to(PrintStream out) {
		this.out = out;
	}

	/** Forgets the expectations that failed so far. */
	void reset() {
		this.failed = 0;
	}

	/** How many expectations failed since the last reset. */
	int failed() {
		return this.failed;
	}

	RunTranscript narrate(RunTranscript run) {
		for (RunTranscript.ToolCall call : run.getCalls()) {
			say("  " + call.tool() + " " + call.arguments() + "\n      -> " + call.outcome() + ": the model read "
					+ abbreviate(call.modelRead()));
		}
		say("  assistant: " + abbreviate(run.getAnswer()).replace("\n", " | "));
		return run;
	}

	/**
	 * A scenario that may end with an exception: with the library switched off, a call that needs a person's
	 * approval is refused outright, for nothing could ask for the approval.
	 */
	boolean played(BooleanSupplier scenario) {
		try {
			return scenario.getAsBoolean();
		}
		catch (RuntimeException ex) {
			return expect("the scenario ran to its end (it ended with: " + ex.getMessage() + ")", false);
		}
	}

	boolean expect(String expectation, int actual, int expected) {
		return expect(expectation + " (" + actual + ")", (Object) actual, expected);
	}

	boolean expect(String expectation, boolean held) {
		return expect(expectation, (Object) held, true);
	}

	boolean expect(String expectation, Object actual, Object expected) {
		boolean held = expected.equals(actual);
		if (!held) {
			this.failed++;
		}
		this.out.println((held ? "  [held]   " : "  [FAILED] ") + expectation + (held ? "" : ": expected " + expected + ", was " + actual));
		return held;
	}

	void title(String title) {
		this.out.println();
		this.out.println(title);
	}

	void say(String line) {
		this.out.println("  " + line);
	}

	static String abbreviate(String text) {
		if (text == null) {
			return "(nothing)";
		}
		return (text.length() > 220) ? text.substring(0, 217) + "..." : text;
	}

}
