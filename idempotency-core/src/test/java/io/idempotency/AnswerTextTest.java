package io.idempotency;

import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** The library's own answers, as the model reads them, for each way a call ends without executing. */
class AnswerTextTest {

	private static final JsonMapper json = new JsonMapper();

	@Test
	void everyRepeatAndRefusalIsToldWithItsKindAndMessage() {
		Map<RuntimeException, Answer> failures = Map.of(
				new ToolCallInProgressException("t", Instant.parse("2026-01-01T00:00:00Z")), Answer.IN_PROGRESS,
				new PreviousAttemptFailedException("t", "card declined"), Answer.PREVIOUS_ATTEMPT_FAILED,
				new ResultNotStoredException("t"), Answer.REPLAYED_WITHOUT_RESULT,
				new IdempotencyConflictException("t"), Answer.REFUSED_CONFLICT,
				new MissingRunException("t"), Answer.REFUSED_WITHOUT_RUN,
				new LedgerUnavailableException("t", new IllegalStateException("down")), Answer.REFUSED_LEDGER_UNAVAILABLE);
		failures.forEach((failure, answer) -> {
			JsonNode told = json.readTree(AnswerText.ofFailure(failure, answered(answer)).orElseThrow());
			assertThat(told.get("kind").asString()).as("%s", failure).isEqualTo(answer.kind());
			assertThat(told.get("replayed").asBoolean()).as("%s", failure).isEqualTo(answer.isRepeat());
			assertThat(told.get("message").asString()).as("%s", failure).isEqualTo(failure.getMessage());
		});
	}

	@Test
	void anAnswerWrappedByAFrameworkIsFoundInTheCauses() {
		RuntimeException wrapped = new IllegalStateException("tool failed",
				new PreviousAttemptFailedException("t", "card declined"));

		JsonNode told = json.readTree(
				AnswerText.ofFailure(wrapped, answered(Answer.PREVIOUS_ATTEMPT_FAILED)).orElseThrow());

		assertThat(told.get("kind").asString()).isEqualTo("previous_attempt_failed");
		assertThat(told.get("message").asString()).contains("card declined");
	}

	@Test
	void aToolsOwnFailureIsNotTheLibrarysToTell() {
		assertThat(AnswerText.ofFailure(new IllegalArgumentException("no such account"), answered(Answer.FAILED)))
			.isEmpty();
		assertThat(AnswerText.ofFailure(new IllegalArgumentException("no such account"), null)).isEmpty();
	}

	@Test
	void aCallThatExecutedAndFailedBecauseACallInsideItWasRefusedFailedAsItsOwn() {
		RuntimeException nested = new IllegalStateException("shipment not booked",
				new PreviousAttemptFailedException("send_quote", "card declined"));

		assertThat(AnswerText.ofFailure(nested, answered(Answer.FAILED))).isEmpty();
		assertThat(AnswerText.ofFailure(nested, answered(Answer.UNKNOWN))).isEmpty();
		assertThat(AnswerText.ofFailure(new ToolCallInProgressException("send_quote", null), answered(Answer.EXECUTED)))
			.isEmpty();
	}

	@Test
	void anAnswerInTheCausesIsTheCallsOnlyWhereItIsTheAnswerTheCallWasGiven() {
		RuntimeException nested = new IllegalStateException("not booked", new IdempotencyConflictException("t"));

		assertThat(AnswerText.ofFailure(nested, answered(Answer.IN_PROGRESS))).isEmpty();
	}

	private static IdempotentCall answered(Answer answer) {
		return new IdempotentCall("t", "t", null, answer, false);
	}

	@Test
	void aReplayNoticeKeepsTheResultAsJsonWhereItIsAndAsTextWhereItIsNot() {
		JsonNode asJson = json.readTree(AnswerText.replayed("{\"id\":7}"));
		JsonNode asText = json.readTree(AnswerText.replayed("done: 7"));

		assertThat(asJson.get("result").get("id").asInt()).isEqualTo(7);
		assertThat(asText.get("result").asString()).isEqualTo("done: 7");
		assertThat(asJson.get("message").asString()).isEqualTo(Answer.REPLAYED.message());
	}

}
