package io.idempotency.advice;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;

import io.idempotency.ledger.LedgerStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tool that names its own definite failures ({@code failedOn = IllegalStateException.class}, "the order is in
 * a state that refuses it") and whose wait is cancelled after it handed its work on: a
 * {@link CancellationException} is an {@code IllegalStateException}. The asynchronous path records a cancelled
 * body {@code unknown} whatever {@code failedOn} says (Outcomes.failed, through this classifier); the synchronous
 * path must not record the same cancellation {@code failed}, which a repeat would then answer as a definite
 * failure and the model would retry, doing the work twice.
 */
class FailureClassifierCancellationTest {

	private final FailureClassifier defaults = new FailureClassifier(List.of());

	@Test
	void aCancelledWaitIsUnknownEvenWhereTheToolsFailedOnNamesASuperclassOfIt() {
		ToolDescriptor tool = tool(List.of(IllegalStateException.class));

		assertThat(this.defaults.classify(new CancellationException("the wait for the warehouse was cancelled"), tool))
			.isEqualTo(LedgerStatus.UNKNOWN);
	}

	private static ToolDescriptor tool(List<Class<? extends Throwable>> failedOn) {
		Method method;
		try {
			method = Tools.class.getMethod("placeOrder", String.class);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
		return new ToolDescriptor(method, "place_order", "placeOrder", false, null, false, null, false, List.of(),
				failedOn, Set.of(), Duration.ZERO, io.idempotency.key.KeyArguments.all(),
				io.idempotency.DifferentDetails.REPLAY, ApprovalNeed.NONE);
	}

	public static class Tools {

		public String placeOrder(String sku) {
			return sku;
		}

	}

}
