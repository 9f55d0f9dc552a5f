package io.idempotency.run;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The run of a call: its tool context first, then the bound run, then the sources, in their order. */
class RunResolverTest {

	private final RunSource header = () -> Optional.of(new Run("from-header", "rep-9"));

	private final RunResolver runs = new RunResolver("runId", "userId", List.of(() -> Optional.empty(), this.header));

	@Test
	void aToolContextAmongTheArgumentsNamesTheRunFirst() {
		Object[] arguments = { "SKU-1", new ToolContext(Map.of("runId", "r-1", "userId", "rep-1")) };

		assertThat(RunContext.supply(new Run("bound", null), () -> this.runs.resolve(arguments)))
			.contains(new Run("r-1", "rep-1"));
		assertThat(this.runs.resolve(Map.of("runId", "r-2"))).contains(new Run("r-2", null));
	}

	@Test
	void withoutOneTheBoundRunThenTheFirstSourceThatKnowsOne() {
		Object[] arguments = { "SKU-1", new ToolContext(Map.of("runId", " ")) };

		assertThat(RunContext.supply(new Run("bound", "rep-2"), () -> this.runs.resolve(arguments)))
			.contains(new Run("bound", "rep-2"));
		assertThat(this.runs.resolve(arguments)).contains(new Run("from-header", "rep-9"));
		assertThat(new RunResolver("runId", "userId", List.of()).resolve(Map.of())).isEmpty();
	}

	@Test
	void blankKeysAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RunResolver(" ", "userId", List.of()))
			.withMessageContaining("runIdKey");
	}

}
