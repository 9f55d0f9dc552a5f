package io.idempotency.advice;

import java.util.List;
import java.util.Optional;

import io.idempotency.Answer;
import io.idempotency.AwaitingApprovalException;
import io.idempotency.DifferentDetails;
import io.idempotency.DifferentDetailsException;
import io.idempotency.IdempotencyConflictException;
import io.idempotency.NotApprovedException;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.ResultNotStoredException;
import io.idempotency.ToolCallInProgressException;
import io.idempotency.ToolResult;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.ResultCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a call that lost its claim, from the row it lost to: the stored result (a replay), or a refusal
 * that says why it was not executed again (in progress, a previous failure, another user's key, waiting for a
 * person's approval or not approved). A call whose claim made a row that waits for approval is answered here too:
 * nothing executes until a person approves it. A tool that
 * returns {@link ToolResult} is answered with one; others with the result or an exception, which is carried as
 * a {@link Refusal} until the call is out of any transaction it ran in, and thrown only then ({@link #given}).
 */
final class Repeats {

	private static final Logger logger = LoggerFactory.getLogger(Repeats.class);

	private final ResultCodec results;

	private final CallReports reports;

	Repeats(ResultCodec results, CallReports reports) {
		this.results = results;
		this.reports = reports;
	}

	/**
	 * An answer that is an exception, carried as a value out of the transaction the call ran in. Thrown inside
	 * a transaction template, it would roll that transaction back, and mark a caller's transaction that the
	 * call joined rollback-only, so that the caller's own work could not commit, though the call executed
	 * nothing.
	 */
	record Refusal(RuntimeException exception) {
	}

	/** What the caller is given for an answer: a value as it is; a {@link Refusal}'s exception, thrown. */
	static Object given(Object answer) {
		if (answer instanceof Refusal refusal) {
			throw refusal.exception();
		}
		return answer;
	}

	/** The answer of a call that lost its claim: a value, or a {@link Refusal}. */
	Object answer(ToolDescriptor tool, Claim claim, ClaimRequest request, CallLedger ledger) {
		if (claim instanceof Claim.Replay replay) {
			return replay(tool, replay, request, ledger);
		}
		if (claim instanceof Claim.PreviousAttemptFailed failed) {
			this.reports.tell(tool, request, Answer.PREVIOUS_ATTEMPT_FAILED);
			if (tool.envelope()) {
				return ToolResult.previousAttemptFailed(failed.error());
			}
			return new Refusal(new PreviousAttemptFailedException(tool.name(), failed.error()));
		}
		if (claim instanceof Claim.AwaitingApproval awaiting) {
			this.reports.tell(tool, request, Answer.AWAITING_APPROVAL);
			if (tool.envelope()) {
				return ToolResult.awaitingApproval(awaiting.reason());
			}
			return new Refusal(new AwaitingApprovalException(tool.name(), awaiting.reason()));
		}
		if (claim instanceof Claim.NotApproved notApproved) {
			this.reports.tell(tool, request, Answer.REFUSED_NOT_APPROVED);
			if (tool.envelope()) {
				return ToolResult.notApproved(notApproved.expired(), notApproved.reason());
			}
			return new Refusal(new NotApprovedException(tool.name(), notApproved.expired(), notApproved.reason()));
		}
		if (claim instanceof Claim.InProgress inProgress) {
			this.reports.tell(tool, request, Answer.IN_PROGRESS);
			if (tool.envelope()) {
				return ToolResult.inProgress(inProgress.since());
			}
			return new Refusal(new ToolCallInProgressException(tool.name(), inProgress.since()));
		}
		this.reports.tell(tool, request, Answer.REFUSED_CONFLICT);
		return new Refusal(new IdempotencyConflictException(tool.name()));
	}

	private Object replay(ToolDescriptor tool, Claim.Replay replay, ClaimRequest request, CallLedger ledger) {
		List<String> different = differentDetails(tool, request, ledger);
		if (!different.isEmpty() && tool.onDifferentDetails() == DifferentDetails.REFUSE) {
			this.reports.tell(tool, request, Answer.REFUSED_DIFFERENT_DETAILS, different);
			return new Refusal(new DifferentDetailsException(tool.name(), different));
		}
		if (replay.result() == null && !tool.returnsNothing()) {
			return withoutResult(tool, request, null);
		}
		Object data;
		try {
			data = this.results.read(replay.result(), tool.dataType());
		}
		catch (ResultCodec.UnreadableResultException ex) {
			// The result type changed since the row was written: done, not done again, and never a guess.
			logger.atWarn()
				.addKeyValue("idempotency.tool", tool.name())
				.addKeyValue("idempotency.key", request.key().value())
				.addKeyValue("idempotency.run", request.runId())
				.addKeyValue("idempotency.outcome", Answer.REPLAYED_WITHOUT_RESULT.kind())
				.log("The stored result of tool '{}' (key {}) cannot be read back: {}. A repeat is told the action was"
						+ " done, without its result", tool.name(), request.key(), ex.getMessage());
			return withoutResult(tool, request, ex);
		}
		if (different.isEmpty()) {
			this.reports.tell(tool, request, Answer.REPLAYED);
			return tool.envelope() ? ToolResult.replayed(data) : data;
		}
		this.reports.tell(tool, request, Answer.REPLAYED_DIFFERENT_DETAILS, different);
		return tool.envelope() ? ToolResult.replayedWithDifferentDetails(data, different) : data;
	}

	/**
	 * For a tool that keys on some of its arguments: the details in which this repeat's others differ from the
	 * earlier call's, as stored (both redacted alike). It reads the earlier call's row: one round trip, on a
	 * replay of such a tool only. A row that cannot be read is a plain replay, with a warning.
	 */
	private static List<String> differentDetails(ToolDescriptor tool, ClaimRequest request, CallLedger ledger) {
		if (tool.keyArguments().isAll()) {
			return List.of();
		}
		try {
			Optional<LedgerEntry> earlier = ledger.find(request.key());
			if (earlier.isEmpty() || earlier.get().arguments() == null) {
				return List.of();
			}
			String later = ledger.redaction().redact(request.arguments(), request.sensitiveNames());
			return tool.keyArguments().differentDetails(earlier.get().arguments(), later);
		}
		catch (RuntimeException ex) {
			logger.atWarn()
				.addKeyValue("idempotency.tool", tool.name())
				.addKeyValue("idempotency.key", request.key().value())
				.addKeyValue("idempotency.run", request.runId())
				.log("The arguments of the earlier call of tool '{}' (key {}) could not be compared with its repeat's;"
						+ " it is answered as a replay: {}", tool.name(), request.key(), String.valueOf(ex));
			return List.of();
		}
	}

	/** A repeat of a call that succeeded, whose result there is none of to show: done, not done again. */
	private Object withoutResult(ToolDescriptor tool, ClaimRequest request, Exception cause) {
		this.reports.tell(tool, request, Answer.REPLAYED_WITHOUT_RESULT);
		if (tool.envelope()) {
			return ToolResult.replayedWithoutResult();
		}
		ResultNotStoredException notStored = new ResultNotStoredException(tool.name());
		if (cause != null) {
			notStored.initCause(cause);
		}
		return new Refusal(notStored);
	}

}
