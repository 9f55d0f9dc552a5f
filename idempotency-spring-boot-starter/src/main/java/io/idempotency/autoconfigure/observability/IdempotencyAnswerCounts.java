package io.idempotency.autoconfigure.observability;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

import io.idempotency.Answer;
import io.idempotency.IdempotentCall;
import io.idempotency.IdempotentCallListener;

/**
 * How the calls of this instance were answered since it started, by answer: for {@code /actuator/idempotency},
 * whose other figures come from the ledger and cover every instance.
 */
public class IdempotencyAnswerCounts implements IdempotentCallListener {

	private final Map<Answer, LongAdder> counts = new EnumMap<>(Answer.class);

	public IdempotencyAnswerCounts() {
		for (Answer answer : Answer.values()) {
			this.counts.put(answer, new LongAdder());
		}
	}

	@Override
	public void onCall(IdempotentCall call) {
		this.counts.get(call.answer()).increment();
	}

	/** The answers given at least once, by kind ({@code replayed_different_details}), in name order. */
	public Map<String, Long> byKind() {
		Map<String, Long> byKind = new TreeMap<>();
		this.counts.forEach((answer, count) -> {
			long value = count.sum();
			if (value > 0) {
				byKind.put(answer.kind(), value);
			}
		});
		return byKind;
	}

}
