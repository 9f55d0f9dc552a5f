package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Types;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.idempotency.Answer;
import io.idempotency.key.IdempotencyKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ArgumentTypePreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The statements of the call path, on whatever connection the template is given: claim a key (insert, or
 * read the row the insert lost to), write an outcome, and log a completion that came too late to be
 * written. Shared by the ledger on its own connection ({@link CommittedClaims}, {@link OutcomeWrites}) and the
 * one in the caller's transaction ({@link CallersTransactionLedger}).
 */
final class CallStatements {

	/** Under the ledger's category: operators know its late completions and refusals by it. */
	private static final Logger logger = LoggerFactory.getLogger(JdbcLedger.class);

	/** Status, result, error, and the row id: every null typed, so no driver asks the server what it is. */
	private static final int[] OUTCOME_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.VARCHAR, Types.BIGINT };

	private static final int[] OVERTURN_TYPES = { Types.VARCHAR, Types.VARCHAR, Types.BIGINT };

	private final JdbcTemplate jdbc;

	private final LedgerStatements sql;

	private final LedgerDialect dialect;

	private final LedgerRows rows;

	private final AtomicLong lateCompletions = new AtomicLong();

	/** The calls this instance claimed as waiting for a person's approval. */
	private final AtomicLong approvalsRequested = new AtomicLong();

	/** Every parameter of the claim typed as text, so that no driver asks the server what a null is. */
	private final int[] claimTypes;

	/** The same, for the claim of a call that needs approval. */
	private final int[] claimAwaitingTypes;

	CallStatements(LedgerDatabase database) {
		this.jdbc = database.jdbc();
		this.sql = database.sql();
		this.dialect = database.dialect();
		this.rows = database.rows();
		this.claimTypes = textParameters(this.sql.claim);
		this.claimAwaitingTypes = textParameters(this.sql.claimAwaiting);
	}

	private static int[] textParameters(String statement) {
		int[] types = new int[(int) statement.chars().filter((c) -> c == '?').count()];
		Arrays.fill(types, Types.VARCHAR);
		return types;
	}

	private String claimStatement(ClaimRequest request) {
		return request.needsApproval() ? this.sql.claimAwaiting : this.sql.claim;
	}

	private int[] claimTypes(ClaimRequest request) {
		return request.needsApproval() ? this.claimAwaitingTypes : this.claimTypes;
	}

	/**
	 * What a claim that inserted its row won: the call to execute, or, for a call that needs approval, a row that
	 * waits for a person's approval, and nothing to execute.
	 */
	private static Claim won(ClaimRequest request, long rowId, String storedArguments) {
		if (!request.needsApproval()) {
			return new Claim.Won(request.key(), rowId);
		}
		LedgerEntry waiting = new LedgerEntry(rowId, request.key(), request.runId(), request.userId(), request.tool(),
				storedArguments, LedgerStatus.AWAITING_APPROVAL, null, null, null, null, 0, 0, null);
		return new Claim.AwaitingApproval(waiting, request.approvalReason(), true);
	}

	/**
	 * Claims a key once: a claim that won carries the id of the row it inserted, which the writes of that row are
	 * made by.
	 */
	Claim claimOnce(ClaimRequest request, String storedArguments) {
		// A row can vanish between the losing insert and the read (purged, or rolled back by its owner's
		// transaction); then the key is free again and the claim is tried anew.
		for (int attempt = 0; attempt < 3; attempt++) {
			Optional<Claim> claim = this.dialect.writesReturnRows() ? claimAndRead(request, storedArguments)
					: claimThenRead(request, storedArguments);
			if (claim.isPresent()) {
				return claim.get();
			}
		}
		throw new IllegalStateException("The claim of " + request.key() + " neither won nor found the row it lost to");
	}

	/** One statement that inserts the claim or reads the row it loses to. */
	private Optional<Claim> claimAndRead(ClaimRequest request, String storedArguments) {
		Object[] values = this.dialect.claimValues(request, storedArguments);
		Optional<Object> read = this.jdbc.query(claimStatement(request), values, claimTypes(request),
				(ResultSet row) -> {
					row.next();
					// Columns by position: won_id, then the answer columns.
					long wonId = row.getLong(1);
					if (!row.wasNull()) {
						return Optional.of(won(request, wonId, storedArguments));
					}
					row.getLong(2);
					return row.wasNull() ? Optional.empty()
							: Optional.of(this.rows.answerEntry(row, 2, request, storedArguments));
				});
		if (read.isPresent()) {
			return Optional.of((read.get() instanceof LedgerEntry existing) ? lostTo(existing, request) : (Claim) read.get());
		}
		// The read found no row, yet the insert lost: a concurrent claim committed after this statement's
		// snapshot was taken, and the insert, which sees it, stood back. Read it in a statement of its own.
		return findClaimed(request, storedArguments);
	}

	/** An insert that inserts nothing, or fails on the unique key, when it loses, and a read when it has lost. */
	private Optional<Claim> claimThenRead(ClaimRequest request, String storedArguments) {
		long wonId = insert(request, storedArguments);
		if (wonId != 0) {
			return Optional.of(won(request, wonId, storedArguments));
		}
		return findClaimed(request, storedArguments);
	}

	Optional<Claim> findClaimed(ClaimRequest request, String storedArguments) {
		return this.jdbc.query(this.sql.findClaimed, (row, n) -> this.rows.answerEntry(row, 1, request, storedArguments),
				request.key().value()).stream().findFirst().map((entry) -> lostTo(entry, request));
	}

	/**
	 * The id of the row the insert wrote, or {@code 0} when it lost. The id comes back with the insert's own
	 * answer (MariaDB's and MySQL's OK packet carries it; H2 returns it with the update count): no statement
	 * of its own.
	 */
	private long insert(ClaimRequest request, String storedArguments) {
		Object[] values = this.dialect.claimValues(request, storedArguments);
		try {
			return this.jdbc.execute((Connection connection) -> connection.prepareStatement(claimStatement(request),
					Statement.RETURN_GENERATED_KEYS), (PreparedStatement statement) -> {
						new ArgumentTypePreparedStatementSetter(values, claimTypes(request)).setValues(statement);
						if (statement.executeUpdate() != 1) {
							return 0L;
						}
						try (ResultSet keys = statement.getGeneratedKeys()) {
							if (!keys.next()) {
								throw new IllegalStateException("The claim of " + request.key()
										+ " inserted its row, but the database did not say the row's id");
							}
							return keys.getLong(1);
						}
					});
		}
		catch (DuplicateKeyException lost) {
			return 0;
		}
	}

	/**
	 * The answer of a claim that lost to an existing row: a row that a person approved is taken, and executed,
	 * by the one claim that takes it first. A claim whose take finds the row taken meanwhile is answered in
	 * progress from what it knows, not from a second read: in a transaction at repeatable read (MariaDB's default,
	 * where a pool's auto-commit is off) that read would see the row approved still.
	 */
	private Claim lostTo(LedgerEntry existing, ClaimRequest request) {
		if (existing.status() != LedgerStatus.APPROVED || !Objects.equals(existing.userId(), request.userId())) {
			return answerFrom(existing, request);
		}
		if (this.jdbc.update(this.sql.takeApproved, existing.id()) == 1) {
			return new Claim.Won(request.key(), existing.id());
		}
		return new Claim.InProgress(new LedgerEntry(existing.id(), existing.key(), existing.runId(), existing.userId(),
				existing.tool(), existing.arguments(), LedgerStatus.ATTEMPTING, null, null, existing.startedAt(), null,
				existing.replayCount(), existing.reconcileAttempts(), existing.reconcileOwner()));
	}

	/** The answer of a claim from a row of its key that it does not take: a repeat, or a refusal. */
	Claim answerFrom(LedgerEntry existing, ClaimRequest request) {
		if (!Objects.equals(existing.userId(), request.userId())) {
			logger.atWarn()
				.addKeyValue("idempotency.tool", request.tool())
				.addKeyValue("idempotency.key", request.key().value())
				.addKeyValue("idempotency.run", request.runId())
				.addKeyValue("idempotency.outcome", Answer.REFUSED_CONFLICT.kind())
				.log("A call of tool '{}' in run '{}' lost its claim on key {} to a row of another user; refusing it"
						+ " without revealing that row. Two users sharing a run id is a bug in the application or an"
						+ " attack.", request.tool(), request.runId(), request.key());
			return new Claim.HeldByAnotherUser(request.key());
		}
		return switch (existing.status()) {
			case SUCCEEDED -> new Claim.Replay(existing);
			case FAILED -> new Claim.PreviousAttemptFailed(existing);
			case ATTEMPTING, UNKNOWN -> new Claim.InProgress(existing);
			case AWAITING_APPROVAL -> new Claim.AwaitingApproval(existing, reasonsOf(existing).asked(), false);
			case REJECTED, EXPIRED -> new Claim.NotApproved(existing, reasonsOf(existing).decided());
			// Approved, and taken by none yet: a row read from memory is never one.
			case APPROVED -> throw new IllegalStateException("The approved row " + existing.id() + " of "
					+ existing.key() + " is taken by a claim, never answered");
		};
	}

	/** Why a row's call asked for approval, and why it was decided so. */
	private record Reasons(String asked, String decided) {
	}

	/** The reasons of a row, read by its id: on the approval paths only. */
	private Reasons reasonsOf(LedgerEntry row) {
		return this.jdbc.query(this.sql.approvalOf, (ResultSet found) -> found.next()
				? new Reasons(found.getString(1), found.getString(2)) : new Reasons(null, null), row.id());
	}

	/**
	 * Writes the outcome of a call on the row its claim won, if that row is still attempting; how many rows it
	 * wrote (0 or 1).
	 */
	int writeOutcome(long rowId, LedgerStatus outcome, String resultJson, String error) {
		return this.jdbc.update(this.sql.recordOutcome,
				new Object[] { outcome.columnValue(), resultJson, LedgerRows.truncate(error), rowId }, OUTCOME_TYPES);
	}

	/**
	 * Writes the outcomes of calls whose rows are still attempting, by their rows' ids, as one JDBC batch: how
	 * many rows each wrote (0 or 1), or {@link java.sql.Statement#SUCCESS_NO_INFO} where the driver does not say.
	 */
	int[] writeOutcomes(java.util.List<LedgerEntry> outcomes) {
		return this.jdbc.batchUpdate(this.sql.recordOutcome, new org.springframework.jdbc.core.BatchPreparedStatementSetter() {

			@Override
			public void setValues(PreparedStatement statement, int i) throws java.sql.SQLException {
				LedgerEntry outcome = outcomes.get(i);
				new ArgumentTypePreparedStatementSetter(new Object[] { outcome.status().columnValue(), outcome.result(),
						LedgerRows.truncate(outcome.error()), outcome.id() }, OUTCOME_TYPES).setValues(statement);
			}

			@Override
			public int getBatchSize() {
				return outcomes.size();
			}

		});
	}

	/**
	 * Writes a success over a failure that a reconciler recorded, while the call still ran, on the row its claim
	 * won (0 or 1 rows).
	 */
	int overturnFailure(long rowId, String resultJson, String reason) {
		return this.jdbc.update(this.sql.overturnFailure,
				new Object[] { resultJson, LedgerRows.truncate(reason), rowId }, OVERTURN_TYPES);
	}

	/** The row of a key, if there is one. */
	Optional<LedgerEntry> find(IdempotencyKey key) {
		return this.jdbc.query(this.sql.findByKey, this.rows::entry, key.value()).stream().findFirst();
	}

	/**
	 * Counts and logs an outcome that was not written because the row its claim won had been settled meanwhile,
	 * or deleted (the key may have been claimed again since: that row is another call's).
	 */
	void lateCompletion(IdempotencyKey key, long rowId, LedgerStatus outcome) {
		this.lateCompletions.incrementAndGet();
		String found = find(key).filter((entry) -> entry.id() == rowId)
			.map((entry) -> "is already " + entry.status().columnValue())
			.orElse("no longer exists");
		logger.atWarn()
			.addKeyValue("idempotency.key", key.value())
			.addKeyValue("idempotency.status", outcome.columnValue())
			.log("Late completion of key {}: the call ended {}, but its ledger row {}; the row is left as it is", key,
					outcome.columnValue(), found);
	}

	/** Counts a claim that made a row waiting for approval, once it is committed (or in the caller's transaction). */
	Claim countedRequest(Claim claim) {
		if (claim instanceof Claim.AwaitingApproval awaiting && awaiting.first()) {
			this.approvalsRequested.incrementAndGet();
		}
		return claim;
	}

	long approvalsRequested() {
		return this.approvalsRequested.get();
	}

	long lateCompletions() {
		return this.lateCompletions.get();
	}

}
