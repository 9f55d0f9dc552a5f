package io.idempotency.run;

import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RunContextTest {

	private static final Run MONDAY = new Run("monday-run", "rep-1");

	@Test
	void aRunIsBoundForTheWorkAndNoLonger() {
		assertThat(RunContext.current()).isEmpty();
		assertThat(RunContext.supply(MONDAY, RunContext::current)).contains(MONDAY);
		assertThat(RunContext.current()).isEmpty();
	}

	@Test
	void anInnerRunIsUnboundBackToTheOuterOne() {
		Run inner = new Run("inner", "rep-1");
		RunContext.run(MONDAY, () -> {
			assertThat(RunContext.supply(inner, RunContext::current)).contains(inner);
			assertThat(RunContext.current()).contains(MONDAY);
		});
	}

	@Test
	void theBindingIsRemovedWhenTheWorkThrows() {
		try {
			RunContext.run(MONDAY, () -> {
				throw new IllegalStateException("boom");
			});
		}
		catch (IllegalStateException expected) {
			// the run must not leak to the next work on this thread
		}
		assertThat(RunContext.current()).isEmpty();
	}

	@Test
	void theRunTravelsToOtherThreadsWithContextPropagation() throws Exception {
		ExecutorService plain = Executors.newSingleThreadExecutor();
		ExecutorService propagating = ContextExecutorService.wrap(Executors.newSingleThreadExecutor(),
				() -> ContextSnapshotFactory.builder().build().captureAll());
		try {
			AtomicReference<Optional<Run>> withoutPropagation = new AtomicReference<>();
			AtomicReference<Optional<Run>> withPropagation = new AtomicReference<>();
			RunContext.call(MONDAY, () -> {
				plain.submit(() -> withoutPropagation.set(RunContext.current())).get();
				return propagating.submit(() -> withPropagation.set(RunContext.current())).get();
			});

			assertThat(withoutPropagation.get()).isEmpty();
			assertThat(withPropagation.get()).contains(MONDAY);
			assertThat(propagating.submit(RunContext::current).get()).as("restored after the task").isEmpty();
		}
		finally {
			plain.shutdownNow();
			propagating.shutdownNow();
		}
	}

	@Test
	void aRunNeedsAnIdAndABlankUserIsNoUser() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Run(" ", "rep-1")).withMessageContaining("runId");
		assertThat(new Run("r1", " ").userId()).isNull();
		assertThat(new Run("r1", "").userId()).isNull();
		assertThat(new Run("r1", null).userId()).isNull();
	}

}
