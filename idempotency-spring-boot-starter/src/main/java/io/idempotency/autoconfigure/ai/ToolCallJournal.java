package io.idempotency.autoconfigure.ai;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallListener;

/**
 * Notes, while Spring AI executes one batch of tool calls on this thread, how each idempotent call was
 * answered, so that the tool responses can be told apart afterwards.
 */
public final class ToolCallJournal implements IdempotentCallListener {

	private final ThreadLocal<List<IdempotentCall>> open = new ThreadLocal<>();

	<T> T record(List<IdempotentCall> calls, Supplier<T> work) {
		List<IdempotentCall> outer = this.open.get();
		this.open.set(calls);
		try {
			return work.get();
		}
		finally {
			if (outer != null) {
				this.open.set(outer);
			}
			else {
				this.open.remove();
			}
		}
	}

	@Override
	public void onCall(IdempotentCall call) {
		List<IdempotentCall> calls = this.open.get();
		if (calls != null) {
			calls.add(call);
		}
	}

	static List<IdempotentCall> newRecord() {
		return new ArrayList<>();
	}

}
