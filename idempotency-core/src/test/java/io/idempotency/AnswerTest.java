package io.idempotency;

import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** Every way a call is answered, with the words the model reads, pinned. */
class AnswerTest {

	@Test
	void eachAnswerHasItsOwnKindAndTheModelReadsItAsJson() {
		Set<String> kinds = Arrays.stream(Answer.values()).map(Answer::kind).collect(Collectors.toSet());

		assertThat(kinds).hasSize(Answer.values().length);
		assertThat(new JsonMapper().writeValueAsString(Answer.IN_PROGRESS)).isEqualTo("\"in_progress\"");
	}

	@Test
	void repeatsAndRefusalsAreNamedAsSuch() {
		assertThat(EnumSet.allOf(Answer.class).stream().filter(Answer::isRepeat)).containsExactlyInAnyOrder(
				Answer.REPLAYED, Answer.REPLAYED_DIFFERENT_DETAILS, Answer.REPLAYED_WITHOUT_RESULT, Answer.IN_PROGRESS,
				Answer.PREVIOUS_ATTEMPT_FAILED);
		assertThat(EnumSet.allOf(Answer.class).stream().filter(Answer::isReplayWithResult))
			.containsExactlyInAnyOrder(Answer.REPLAYED, Answer.REPLAYED_DIFFERENT_DETAILS);
		assertThat(EnumSet.allOf(Answer.class).stream().filter(Answer::isRefusal)).containsExactlyInAnyOrder(
				Answer.REFUSED_CONFLICT, Answer.REFUSED_WITHOUT_RUN, Answer.REFUSED_INVALID_ARGUMENTS,
				Answer.REFUSED_LEDGER_UNAVAILABLE, Answer.REFUSED_INVALID_RUN, Answer.REFUSED_DIFFERENT_DETAILS,
				Answer.REFUSED_NOT_APPROVED);
		assertThat(EnumSet.allOf(Answer.class).stream().filter((answer) -> !answer.isNotExecuted()))
			.as("every other answer executed the tool")
			.containsExactlyInAnyOrder(Answer.EXECUTED, Answer.FAILED, Answer.UNKNOWN, Answer.EXECUTED_WITHOUT_RUN);
	}

	@Test
	void theSentencesTheModelReads() {
		assertThat(Answer.REPLAYED.message()).isEqualTo("Already done earlier in this run: this is the result of that"
				+ " earlier call. Nothing was done again, so report one action, not two.");
		assertThat(Answer.REPLAYED_WITHOUT_RESULT.message()).isEqualTo("Already done earlier in this run, but its"
				+ " result could not be kept, so it cannot be shown again. Nothing was done again: do not repeat it,"
				+ " and report it as done.");
		assertThat(Answer.REFUSED_LEDGER_UNAVAILABLE.message()).isEqualTo("Not done: this action could not be"
				+ " recorded before it was carried out, so it was not carried out. Nothing happened. It can be tried"
				+ " again later.");
		assertThat(ToolResult.previousAttemptFailed("card declined").message()).isEqualTo("This action was already"
				+ " attempted earlier in this run and failed (card declined). It was not attempted again.");
		assertThat(ToolResult.inProgress(Instant.parse("2026-01-01T10:00:00Z")).message()).isEqualTo("This action"
				+ " was started earlier in this run (at 2026-01-01T10:00:00Z) and is still in progress, or its"
				+ " outcome is being checked. It was not started again. Do not retry it: report that it is pending.");
		assertThat(new ToolCallInProgressException("t", null).getMessage()).isEqualTo(Answer.IN_PROGRESS.message());
		assertThat(Answer.EXECUTED.message()).isNull();
		assertThat(ToolResult.awaitingApproval("a quote over 1,000 units").message()).isEqualTo("Not done yet: a person"
				+ " must approve this action before it is carried out (a quote over 1,000 units), and nothing has been done"
				+ " so far. Do not call it again until you are told that a person has decided: tell the user that it"
				+ " awaits approval.");
		assertThat(Answer.AWAITING_APPROVAL.message()).isEqualTo("Not done yet: a person must approve this action"
				+ " before it is carried out, and nothing has been done so far. Do not call it again until you are told"
				+ " that a person has decided: tell the user that it awaits approval.");
		assertThat(ToolResult.notApproved(false, "credit on hold").message()).isEqualTo("Not done: a person did not"
				+ " approve this action (credit on hold), so it was not carried out, and it will not be. Do not retry"
				+ " it: tell the user that it was not approved, and why.");
		assertThat(new NotApprovedException("t", true, "Nobody approved it within 24h").getMessage()).isEqualTo("Not"
				+ " done: nobody approved this action in time, so it was not carried out, and it will not be. Do not"
				+ " retry it: tell the user that it was not approved in time.");
	}

	@Test
	void whatAModelReadsNamesNoJavaTypeAndGivesNoAdviceMeantForTheServersCode() {
		assertThat(new PreviousAttemptFailedException("send_quote", "org.springframework.ai.tool.execution"
				+ ".ToolExecutionException: java.lang.IllegalArgumentException: draft 7 has no contact address")
			.getMessage()).isEqualTo("This action was already attempted earlier in this run and failed (draft 7 has no"
					+ " contact address). It was not attempted again.");
		assertThat(ToolResult.previousAttemptFailed("java.lang.NullPointerException: null").message())
			.isEqualTo("This action was already attempted earlier in this run and failed. It was not attempted again.");
		assertThat(ToolResult.previousAttemptFailed("io.acme.Cards$DeclinedException: card declined").message())
			.contains("(card declined)");
		assertThat(new MissingRunException("open_ticket").getMessage()).isEqualTo(Answer.REFUSED_WITHOUT_RUN.message())
			.doesNotContain("RunContext")
			.doesNotContain("ToolContext")
			.contains("nothing was done");
		for (Answer answer : Answer.values()) {
			if (answer.message() != null) {
				assertThat(answer.message()).as("%s", answer).doesNotContainPattern("[a-z]+\\.[a-z]+\\.[A-Z]")
					.doesNotContain("RunContext")
					.doesNotContain("Exception");
			}
		}
	}

	@Test
	void everyExceptionTheLibraryEndsACallWithNamesItsAnswer() {
		assertThat(new ToolCallInProgressException("t", null).answer()).isEqualTo(Answer.IN_PROGRESS);
		assertThat(new PreviousAttemptFailedException("t", "e").answer()).isEqualTo(Answer.PREVIOUS_ATTEMPT_FAILED);
		assertThat(new ResultNotStoredException("t").answer()).isEqualTo(Answer.REPLAYED_WITHOUT_RESULT);
		assertThat(new IdempotencyConflictException("t").answer()).isEqualTo(Answer.REFUSED_CONFLICT);
		assertThat(new MissingRunException("t").answer()).isEqualTo(Answer.REFUSED_WITHOUT_RUN);
		assertThat(new LedgerUnavailableException("t", null).answer()).isEqualTo(Answer.REFUSED_LEDGER_UNAVAILABLE);
		assertThat(new AwaitingApprovalException("t", "r").answer()).isEqualTo(Answer.AWAITING_APPROVAL);
		assertThat(new NotApprovedException("t", false, "r").answer()).isEqualTo(Answer.REFUSED_NOT_APPROVED);
	}

}
