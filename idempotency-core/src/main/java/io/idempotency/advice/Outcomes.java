package io.idempotency.advice;

import java.util.Locale;

import io.idempotency.Answer;
import io.idempotency.ledger.ResultCodec;
import io.idempotency.ToolResult;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.DatabaseErrors;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.LedgerStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the outcome of a call that won its claim, on the row that claim inserted, and tells it: succeeded with
 * its result (or without it, where the result cannot or may not be stored), failed or unknown, with error text
 * scrubbed of redacted values. An outcome that cannot be recorded leaves the row attempting, for the reconciler;
 * a transactional call's failure to record is its transaction's, and is thrown.
 */
final class Outcomes {

	private static final Logger logger = LoggerFactory.getLogger(Outcomes.class);

	private final ResultCodec results;

	private final FailureClassifier failures;

	private final CallReports reports;

	Outcomes(ResultCodec results, FailureClassifier failures, CallReports reports) {
		this.results = results;
		this.failures = failures;
		this.reports = reports;
	}

	/** Records the result of a call that succeeded, and tells it. */
	void succeeded(Execution call, Object result) {
		recordSuccess(call.ledger(), call.tool(), call.request(), call.claim(), result);
		this.reports.tell(call.tool(), call.request(), Answer.EXECUTED);
	}

	/**
	 * Records the failure of a call that won its claim, as failed or unknown where its effect may have happened
	 * (a cancelled stage's among them), and tells it; the failure, to throw. A transactional call's failure is its
	 * transaction's, which rolls back: it is told, not recorded.
	 */
	Throwable failed(Execution call, Throwable failure) {
		ToolDescriptor tool = call.tool();
		LedgerStatus outcome = this.failures.classify(failure, tool);
		ClaimRequest request = call.request();
		if (tool.transactional() && DatabaseErrors.isSerializationFailure(failure)) {
			// Nothing of the call is committed, and TransactionalCalls runs its transaction again.
			return failure;
		}
		if (!tool.transactional()) {
			recordFailure(call.ledger(), tool, request, call.claim(), failure, outcome);
			if (outcome == LedgerStatus.UNKNOWN) {
				// Only the exception's class: its message may quote an argument, a secret among them.
				IdempotentToolInterceptor.LOGGER.atWarn()
					.addKeyValue("idempotency.tool", tool.name())
					.addKeyValue("idempotency.key", request.key().value())
					.addKeyValue("idempotency.run", request.runId())
					.addKeyValue("idempotency.outcome", Answer.UNKNOWN.kind())
					.addKeyValue("idempotency.error", failure.getClass().getName())
					.log("Tool '{}' ended with {}, after which its effect may have happened: its outcome is unknown"
							+ " (key {}), and the reconciler will settle it", tool.name(), failure.getClass().getName(),
							request.key());
			}
		}
		this.reports.tell(tool, request,
				(outcome == LedgerStatus.UNKNOWN && !tool.transactional()) ? Answer.UNKNOWN : Answer.FAILED);
		return failure;
	}

	private void recordSuccess(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Claim.Won claim,
			Object result) {
		Object data = (tool.envelope() && result instanceof ToolResult<?> envelope) ? envelope.data() : result;
		String json = null;
		String notStored = null;
		if (!tool.returnsNothing()) {
			ResultCodec.Storable storable = this.results.storable(data, ledger.redaction(), request.arguments(),
					request.sensitiveNames());
			json = storable.json();
			// Why it is not stored may quote it (a serializer's message), and it may quote an argument.
			notStored = (storable.notStored() != null) ? ledger.redaction()
				.scrub(storable.notStored(), request.arguments(), request.sensitiveNames()) : null;
		}
		try {
			if (notStored != null) {
				// Never a stored null that a replay would pass off as the result: the row says it is missing.
				logger.atWarn()
					.addKeyValue("idempotency.tool", tool.name())
					.addKeyValue("idempotency.key", request.key().value())
					.addKeyValue("idempotency.run", request.runId())
					.log("The result of tool '{}' (key {}) is not stored: {}. A repeat is told the action was done,"
							+ " without its result", tool.name(), request.key(), notStored);
				ledger.recordSucceededWithoutResult(claim, "The result is not stored: " + notStored);
			}
			else {
				ledger.recordSucceeded(claim, json);
			}
		}
		catch (RuntimeException ex) {
			if (tool.transactional()) {
				throw ex;
			}
			if (json != null && DatabaseErrors.isRefusedData(ex)
					&& recordedWithoutResult(ledger, tool, request, claim, ex)) {
				return;
			}
			// The effect happened; the row stays attempting and the reconciler settles it.
			logger.atError()
				.setCause(ex)
				.addKeyValue("idempotency.tool", tool.name())
				.addKeyValue("idempotency.key", request.key().value())
				.addKeyValue("idempotency.run", request.runId())
				.addKeyValue("idempotency.status", "succeeded")
				.log("Tool '{}' succeeded, but its outcome could not be recorded (key {}); the reconciler will settle"
						+ " it", tool.name(), request.key());
		}
	}

	/**
	 * A result the database refused to store (larger than it accepts, say): the call is recorded as done
	 * without its result, so that a repeat is told the action was done rather than left in progress.
	 */
	private boolean recordedWithoutResult(CallLedger ledger, ToolDescriptor tool, ClaimRequest request,
			Claim.Won claim, RuntimeException refused) {
		try {
			String reason = ledger.redaction().scrub("The result is not stored: the database refused it: "
					+ refused.getMessage(), request.arguments(), request.sensitiveNames());
			if (!ledger.recordSucceededWithoutResult(claim, reason)) {
				return false;
			}
			logger.atWarn()
				.addKeyValue("idempotency.tool", tool.name())
				.addKeyValue("idempotency.key", request.key().value())
				.addKeyValue("idempotency.run", request.runId())
				.log("The result of tool '{}' (key {}) could not be stored, so the call is recorded as done without"
						+ " it: {}", tool.name(), request.key(), refused.getClass().getName());
			return true;
		}
		catch (RuntimeException ex) {
			refused.addSuppressed(ex);
			return false;
		}
	}

	private void recordFailure(CallLedger ledger, ToolDescriptor tool, ClaimRequest request, Claim.Won claim,
			Throwable failure, LedgerStatus outcome) {
		// An exception's message may quote an argument, a secret among them (a URL with its API key).
		String error = ledger.redaction().scrub(failure.getClass().getName() + ": " + failure.getMessage(),
				request.arguments(), request.sensitiveNames());
		try {
			if (outcome == LedgerStatus.UNKNOWN) {
				ledger.recordUnknown(claim, error);
			}
			else {
				ledger.recordFailed(claim, error);
			}
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
			logger.atError()
				.setCause(ex)
				.addKeyValue("idempotency.tool", tool.name())
				.addKeyValue("idempotency.key", request.key().value())
				.addKeyValue("idempotency.run", request.runId())
				.addKeyValue("idempotency.status", outcome.name().toLowerCase(Locale.ROOT))
				.log("Tool '{}' failed, and its outcome could not be recorded (key {}); the reconciler will settle it",
						tool.name(), request.key());
		}
	}

}
