package io.idempotency.ledger;

import java.util.Objects;
import java.util.Optional;

import io.idempotency.key.IdempotencyKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.PessimisticLockingFailureException;

/**
 * The claims and reads of the call path on the ledger's own connection, committed before the call goes on. A
 * repeat is answered from memory where it can be (an outcome of this instance's that waits to be written, a
 * success read before and kept); else the claim is made, and made again when it loses a lock conflict. A call
 * of a tool whose calls are mostly repeats now reads its key's row first, and claims only where there is none
 * ({@link RepeatedTools}). A claim won is in flight until its outcome is written; a success read is kept;
 * every repeat is counted.
 */
final class CommittedClaims {

	/** Under the ledger's category: operators know its claims made again by it. */
	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** How often a claim on the ledger's own connection is made when it loses a lock conflict. */
	private static final int CLAIM_ATTEMPTS = 6;

	private final CallStatements statements;

	private final OwnTransactions transactions;

	private final Redaction redaction;

	private final SettledOutcomes settled;

	private final ReplayCounter replays;

	private final CallsInFlight inFlight;

	private final CallOutcomes outcomes;

	private final RepeatedTools repeated = new RepeatedTools();

	CommittedClaims(CallStatements statements, OwnTransactions transactions, Redaction redaction,
			SettledOutcomes settled, ReplayCounter replays, CallsInFlight inFlight, CallOutcomes outcomes) {
		this.statements = statements;
		this.transactions = transactions;
		this.redaction = redaction;
		this.settled = settled;
		this.replays = replays;
		this.inFlight = inFlight;
		this.outcomes = outcomes;
	}

	/** Claims the call's key, or answers it as a repeat; counted as a repeat where it is one. */
	Claim claim(ClaimRequest request) {
		LedgerEntry kept = keptOutcome(request.key());
		if (kept != null) {
			return this.replays.counted(this.statements.answerFrom(kept, request));
		}
		String storedArguments = this.redaction.redact(request.arguments(), request.sensitiveNames());
		Claim claim = this.statements.countedRequest(readOrClaim(request, storedArguments));
		if (claim instanceof Claim.Won won) {
			// Claimed and committed: until its outcome is recorded, this instance beats for it.
			this.inFlight.claimed(won, request, storedArguments);
		}
		else if (claim instanceof Claim.Replay replay) {
			// Read on a connection of the ledger's own, so committed: a success is final and may be kept. A row
			// read in the caller's transaction may be its own, and may yet roll back.
			this.settled.keep(replay.entry());
		}
		return this.replays.counted(claim);
	}

	/**
	 * What answers a repeat here without the database: a success or failure of this instance's that waits to
	 * be written, or a success read before and kept.
	 */
	private LedgerEntry keptOutcome(IdempotencyKey key) {
		LedgerEntry waiting = this.outcomes.waiting(key);
		return (waiting != null) ? waiting : this.settled.find(key);
	}

	/**
	 * The row of the call's key read first, where most of its tool's calls are repeats now, else the claim; each
	 * remembered for the tool. The read is committed on its own, before any claim: in one transaction at
	 * repeatable read (MariaDB's default, where a pool's auto-commit is off) the claim that loses after a read
	 * that found nothing would read that snapshot again, and find nothing.
	 */
	private Claim readOrClaim(ClaimRequest request, String storedArguments) {
		if (this.repeated.readFirst(request.tool())) {
			Optional<Claim> found = readFirst(request, storedArguments);
			if (found.isPresent()) {
				this.repeated.record(request.tool(), true);
				return found.get();
			}
		}
		Claim claim = claimCommitted(request, storedArguments);
		this.repeated.record(request.tool(), RepeatedTools.foundRow(claim));
		return claim;
	}

	/**
	 * The row of the call's key, read before any claim. A row a person approved is taken by its conditional write,
	 * which may lose a lock conflict (on Galera, to a take on another node, failing certification as a deadlock):
	 * rolled back whole, it wrote nothing, and the claim that follows answers the loss as any claim does.
	 */
	private Optional<Claim> readFirst(ClaimRequest request, String storedArguments) {
		try {
			return this.transactions.committed(() -> this.statements.findClaimed(request, storedArguments));
		}
		catch (PessimisticLockingFailureException lost) {
			return Optional.empty();
		}
	}

	/**
	 * The claim, committed on the ledger's own connection; a claim that loses a deadlock or a lock wait
	 * (MariaDB's and MySQL's unique-index locks, under concurrent inserts, outcomes, transactional tools and
	 * retention's deletes) was rolled back whole by the database. It may have lost on a row that is already
	 * there and committed: a plain read, which takes no lock, answers from that row (one a person approved is
	 * taken by a conditional write, which may wait on a lock again, and loses nothing by it). Where there is none, the claim is made again, a few times, each after a short random pause that lets the
	 * transaction it lost to finish: made again at once, it lost to the same one again.
	 */
	private Claim claimCommitted(ClaimRequest request, String storedArguments) {
		for (int attempt = 1;; attempt++) {
			try {
				return this.transactions.committed(() -> this.statements.claimOnce(request, storedArguments));
			}
			catch (PessimisticLockingFailureException ex) {
				Optional<Claim> lostTo = this.transactions.committed(() -> this.statements.findClaimed(request,
						storedArguments));
				if (lostTo.isPresent()) {
					return lostTo.get();
				}
				// A lock wait that timed out waited long already, on a holder that still runs: no second wait. A
				// serialization failure was made again already, as all of the ledger's work is.
				if (attempt >= CLAIM_ATTEMPTS || DatabaseErrors.isLockWaitTimeout(ex)
						|| DatabaseErrors.isSerializationFailure(ex)) {
					throw ex;
				}
				logger.atDebug()
					.addKeyValue("idempotency.tool", request.tool())
					.addKeyValue("idempotency.key", request.key().value())
					.addKeyValue("idempotency.run", request.runId())
					.log("The claim of {} lost a lock conflict and is made again: {}", request.key(), String.valueOf(ex));
				RetryPause.before(attempt, ex);
			}
		}
	}

	/** Counts a repeat answered without a claim of its own, as a lost claim is counted. */
	void recordReplay(IdempotencyKey key) {
		this.replays.record(Objects.requireNonNull(key, "key"));
	}

	/** The row of a key, if there is one: as committed, read on a connection of the ledger's own. */
	Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.transactions.committed(() -> this.statements.find(key));
	}

	/**
	 * The row of a key as a repeat made here now is answered from: the outcome of the key's latest claim here
	 * that waits to be written, where there is one, else the row as committed.
	 */
	Optional<LedgerEntry> findLatest(IdempotencyKey key) {
		LedgerEntry waiting = this.outcomes.waiting(key);
		return (waiting != null) ? Optional.of(waiting) : find(key);
	}

	/**
	 * The same call path in the caller's transaction: it shares the statements, the redaction, the successes
	 * kept and the replay counts.
	 */
	CallLedger inCallersTransaction() {
		return new CallersTransactionLedger(this.statements, this.redaction, this.settled, this.replays);
	}

}
