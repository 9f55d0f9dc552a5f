package io.idempotency.autoconfigure.observability;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.ReplayStatistics;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/idempotency}: the replay rate over the window, the rows by status, the calls waiting
 * for a human, the oldest unsettled calls, and how this instance's calls were answered since it started.
 * Arguments and results are not shown. The ledger is read in one transaction whose timeout bounds each statement
 * (JdbcTemplate gives each the time left as its JDBC query timeout): where its table does not answer within it
 * (a lock held by a migration, a {@code VACUUM FULL}, a {@code LOCK TABLE}), the report fails with that reason,
 * and its connection is returned.
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {

	private final JdbcLedger ledger;

	private final Duration window;

	private final int humanAfterAttempts;

	private final Supplier<Set<String>> transactionalTools;

	private final Duration staleAfter;

	private final Supplier<Map<String, Long>> answers;

	private final LedgerReads reads;

	/**
	 * @param transactionalTools the names of the application's transactional tools, asked at each report
	 * @param staleAfter how long a call of one may stay unsettled before it is reported
	 * @param timeout how long the report's reading of the ledger may take: a whole number of seconds, at least one
	 */
	public IdempotencyEndpoint(JdbcLedger ledger, Duration window, int humanAfterAttempts,
			Supplier<Set<String>> transactionalTools, Duration staleAfter, Duration timeout) {
		this(ledger, window, humanAfterAttempts, transactionalTools, staleAfter, timeout, Map::of);
	}

	/**
	 * @param transactionalTools the names of the application's transactional tools, asked at each report
	 * @param staleAfter how long a call of one may stay unsettled before it is reported
	 * @param timeout how long the report's reading of the ledger may take: a whole number of seconds, at least one
	 * @param answers how this instance's calls were answered since it started, by kind
	 */
	public IdempotencyEndpoint(JdbcLedger ledger, Duration window, int humanAfterAttempts,
			Supplier<Set<String>> transactionalTools, Duration staleAfter, Duration timeout,
			Supplier<Map<String, Long>> answers) {
		this.reads = new LedgerReads(ledger, timeout);
		this.ledger = ledger;
		this.window = window;
		this.humanAfterAttempts = humanAfterAttempts;
		this.transactionalTools = transactionalTools;
		this.staleAfter = staleAfter;
		this.answers = answers;
	}

	/**
	 * The ledger's state.
	 * @param unsettledTransactional calls of transactional tools unsettled for longer than the reconciler's
	 * threshold: their claim committed without their transaction, and no reconciler resolves them
	 * @param answersSinceStart how this instance's calls were answered since it started, by kind
	 * ({@code replayed}, {@code replayed_different_details}, ...): answers given at least once
	 */
	public record Report(String table, Window replays, Map<LedgerStatus, Long> rowsByStatus, long awaitingHuman,
			long unsettledTransactional, List<UnsettledCall> oldestUnsettled, Map<String, Long> answersSinceStart) {
	}

	/** Replays over a window. */
	public record Window(String window, long calls, long replays, double replayRate) {
	}

	/** A call still attempting or unknown. */
	public record UnsettledCall(String key, String tool, String runId, LedgerStatus status, Instant startedAt,
			int reconcileAttempts) {
	}

	/** The report, read from the ledger within the timeout. */
	@ReadOperation
	public Report report() {
		Set<String> transactional = this.transactionalTools.get();
		Map<String, Long> answersSinceStart = this.answers.get();
		return this.reads.read(() -> read(transactional, answersSinceStart));
	}

	private Report read(Set<String> transactional, Map<String, Long> answersSinceStart) {
		ReplayStatistics statistics = this.ledger.replayStatistics(this.window);
		List<UnsettledCall> oldest = this.ledger.oldestUnsettled(20)
			.stream()
			.map(IdempotencyEndpoint::unsettled)
			.toList();
		return new Report(this.ledger.tableName(),
				new Window(this.window.toString(), statistics.calls(), statistics.replays(), statistics.replayRate()),
				this.ledger.countByStatus(), this.ledger.countAwaitingHuman(this.humanAfterAttempts),
				this.ledger.countUnsettledOf(transactional, this.staleAfter), oldest, answersSinceStart);
	}

	private static UnsettledCall unsettled(LedgerEntry entry) {
		return new UnsettledCall(entry.key().value(), entry.tool(), entry.runId(), entry.status(), entry.startedAt(),
				entry.reconcileAttempts());
	}

}
