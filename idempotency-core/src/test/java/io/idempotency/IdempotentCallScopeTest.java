package io.idempotency;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every scope open on a thread learns how a call made in it was answered. */
class IdempotentCallScopeTest {

	private static IdempotentCall call(String tool, io.idempotency.Answer outcome) {
		return new IdempotentCall(tool, tool, null, outcome, false);
	}

	@Test
	void anEnclosingScopeLearnsTheCallToldToTheScopeInsideIt() {
		try (IdempotentCallScope application = IdempotentCallScope.open()) {
			try (IdempotentCallScope callback = IdempotentCallScope.open()) {
				IdempotentCallScope.tell(call("export_drafts", io.idempotency.Answer.REPLAYED));
				assertThat(callback.last()).map(IdempotentCall::tool).contains("export_drafts");
			}
			assertThat(application.last()).map(IdempotentCall::answer).contains(io.idempotency.Answer.REPLAYED);
			assertThat(IdempotentCallScope.isOpen()).isTrue();
		}
		assertThat(IdempotentCallScope.isOpen()).isFalse();
	}

	@Test
	void anInnerScopeLearnsNothingOfCallsMadeBeforeItOpened() {
		try (IdempotentCallScope outer = IdempotentCallScope.open()) {
			IdempotentCallScope.tell(call("first", io.idempotency.Answer.EXECUTED));
			try (IdempotentCallScope inner = IdempotentCallScope.open()) {
				assertThat(inner.last()).isEmpty();
				IdempotentCallScope.tell(call("second", io.idempotency.Answer.IN_PROGRESS));
			}
			assertThat(outer.last()).map(IdempotentCall::tool).contains("second");
		}
	}

}
