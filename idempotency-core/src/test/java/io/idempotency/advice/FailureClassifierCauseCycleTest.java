package io.idempotency.advice;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.idempotency.ledger.LedgerStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A cause chain may loop (A caused by B caused by A: {@code initCause} only refuses a throwable as its own
 * cause, and the JDK prints such chains as a "CIRCULAR REFERENCE"). Classifying the failure of such a call must
 * end, and the call must still be recorded: a tool whose failure loops must not hang its caller's thread.
 */
class FailureClassifierCauseCycleTest {

	@Test
	void aFailureWhoseCausesLoopIsClassifiedAndDoesNotHang() {
		RuntimeException outer = new RuntimeException("order failed");
		IllegalStateException inner = new IllegalStateException("upstream", outer);
		outer.initCause(inner);

		FailureClassifier classifier = new FailureClassifier(List.of());
		LedgerStatus status = assertTimeoutPreemptively(Duration.ofSeconds(5),
				() -> classifier.classify(outer, tool()));

		assertThat(status).isEqualTo(LedgerStatus.FAILED);
	}

	@Test
	void aLoopBelowTheTopOfTheChainEndsToo() {
		RuntimeException loop = new RuntimeException("a");
		RuntimeException back = new RuntimeException("b", loop);
		loop.initCause(back);
		RuntimeException top = new RuntimeException("top", loop);

		FailureClassifier classifier = new FailureClassifier(List.of());
		LedgerStatus status = assertTimeoutPreemptively(Duration.ofSeconds(5),
				() -> classifier.classify(top, tool()));

		assertThat(status).isEqualTo(LedgerStatus.FAILED);
	}

	private static ToolDescriptor tool() {
		Method method;
		try {
			method = Tools.class.getMethod("placeOrder", String.class);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
		return new ToolDescriptor(method, "place_order", "placeOrder", false, null, false, null, false, List.of(),
				List.of(), Set.of(), Duration.ZERO, io.idempotency.key.KeyArguments.all(),
				io.idempotency.DifferentDetails.REPLAY, ApprovalNeed.NONE);
	}

	public static class Tools {

		public String placeOrder(String sku) {
			return sku;
		}

	}

}
