package io.idempotency.docs;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.Claim;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;

/** docs/ledger-and-databases.md: a call claimed and recorded on the ledger by hand. */
class LedgerByHand {

    void call(DataSource dataSource, String argumentsJson, String runId, String userId, String resultJson) {
        // tag::claim[]
        JdbcLedger ledger = new JdbcLedger(dataSource);   // tool_audit, default redaction

        IdempotencyKey key = IdempotencyKeys.derive("open_ticket", argumentsJson, runId);
        Claim claim = ledger.claim(new ClaimRequest(key, runId, userId, "open_ticket", argumentsJson));

        if (claim instanceof Claim.Won won) {
            // execute, then record what happened, on the row this claim won
            ledger.recordSucceeded(won, resultJson);       // or recordFailed(won, error), recordUnknown(won, error)
        } else if (claim instanceof Claim.Replay replay) {
            // already done in this run: answer with replay.result(), and tell the model it was a replay
        } else if (claim instanceof Claim.InProgress inProgress) {
            // running, or its outcome is unknown since inProgress.since(): NOT a failure, do not retry
        } else if (claim instanceof Claim.PreviousAttemptFailed failed) {
            // ran in this run and failed: failed.error()
        } else if (claim instanceof Claim.HeldByAnotherUser) {
            // another user's row: refused, and nothing of it is revealed
        }
        // end::claim[]
    }

}
