package io.idempotency.sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/** Each of the demo's scenarios, against the running application and its external systems. */
class DemoScenariosTest extends SampleAppTest {

	@Autowired
	Demo demo;

	private final ByteArrayOutputStream narration = new ByteArrayOutputStream();

	@BeforeEach
	void narrateHere() {
		this.demo.narrateTo(new PrintStream(this.narration, true, StandardCharsets.UTF_8));
	}

	private String narration() {
		return this.narration.toString(StandardCharsets.UTF_8);
	}

	@Test
	void aNetworkRetryWithTheSameIdempotencyKeyIsTheSameRun() {
		assertThat(this.demo.networkRetry()).as(this::narration).isTrue();
	}

	@Test
	void theApplicationsOwnRetryWithinTheRunActsOnce() {
		assertThat(this.demo.codeRetry()).as(this::narration).isTrue();
	}

	@Test
	void theModelsRepeatWithReorderedArgumentsIsOneQuoteAndTheModelIsTold() {
		this.demo.modelRepeatsACallReordered();
		assertThat(narration()).doesNotContain("[FAILED]").contains("[held]   one quote (1)");
	}

	@Test
	void theSameRequestOnTwoDaysIsTwoRunsAndTwoTickets() {
		assertThat(this.demo.mondayAndTuesday()).as(this::narration).isTrue();
	}

	@Test
	void twoDifferentTicketsInOneRunAreTwoTickets() {
		assertThat(this.demo.twoTicketsInOneRun()).as(this::narration).isTrue();
	}

	@Test
	void aTimeoutAfterTheEffectIsNotRetriedInTheRunAndIsReconciled() {
		assertThat(this.demo.timeoutAfterTheEffect()).as(this::narration).isTrue();
	}

	@Test
	void aFailureBeforeTheEffectIsNotRetriedInTheRunAndANewRunSendsOnce() {
		long quoteId = this.demo.modelRepeatsACallReordered();
		assertThat(this.demo.failureBeforeTheEffect(quoteId)).as(this::narration).isTrue();
		assertThat(this.demo.replayRate()).as(this::narration).isTrue();
	}

	@Test
	void aCallTheReconcilerCannotSettleWaitsForAHumanAndASettlementByHandIsReadByItsRepeat() {
		assertThat(this.demo.settledByHand()).as(this::narration).isTrue();
	}

	@Test
	void aQuoteOverTheThresholdWaitsForApprovalAndApprovedIsSentOnceWhenItsRunIsResumed() {
		assertThat(this.demo.approvedAndResumed()).as(this::narration).isTrue();
	}

	@Test
	void aQuoteOverTheThresholdRejectedIsNeverSentAndItsResumedRunIsToldWhy() {
		assertThat(this.demo.rejectedAndResumed()).as(this::narration).isTrue();
	}

}
