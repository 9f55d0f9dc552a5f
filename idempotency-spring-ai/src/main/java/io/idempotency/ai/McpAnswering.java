package io.idempotency.ai;

/**
 * The mark of a thread on which a decorated MCP tool runs: there its tool callback leaves the answer to the
 * MCP result, told once, rather than telling it in the text it returns.
 */
final class McpAnswering {

	/** Set while a decorated MCP tool runs on this thread. */
	private static final ThreadLocal<Boolean> answering = new ThreadLocal<>();

	private McpAnswering() {
	}

	/** Whether a decorated MCP tool is running on this thread, so its callback leaves the answer to it. */
	static boolean onThisThread() {
		return answering.get() != null;
	}

	/** Marks this thread as running a decorated MCP tool; returns the mark it replaced, for {@link #exit}. */
	static Boolean enter() {
		Boolean outer = answering.get();
		answering.set(Boolean.TRUE);
		return outer;
	}

	static void exit(Boolean outer) {
		if (outer == null) {
			answering.remove();
		}
	}

}
