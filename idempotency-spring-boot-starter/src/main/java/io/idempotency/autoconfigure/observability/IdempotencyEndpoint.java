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
 * for a human, and the oldest unsettled calls. Arguments and results are not shown.
 */
@Endpoint(id = "idempotency")
public class IdempotencyEndpoint {

	private final JdbcLedger ledger;

	private final Duration window;

	private final int humanAfterAttempts;

	private final Supplier<Set<String>> transactionalTools;

	private final Duration staleAfter;

	/**
	 * @param transactionalTools the names of the application's transactional tools, asked at each report
	 * @param staleAfter how long a call of one may stay unsettled before it is reported
	 */
	public IdempotencyEndpoint(JdbcLedger ledger, Duration window, int humanAfterAttempts,
			Supplier<Set<String>> transactionalTools, Duration staleAfter) {
		this.ledger = ledger;
		this.window = window;
		this.humanAfterAttempts = humanAfterAttempts;
		this.transactionalTools = transactionalTools;
		this.staleAfter = staleAfter;
	}

	/**
	 * The ledger's state.
	 * @param unsettledTransactional calls of transactional tools unsettled for longer than the reconciler's
	 * threshold: their claim committed without their transaction, and no reconciler resolves them
	 */
	public record Report(String table, Window replays, Map<LedgerStatus, Long> rowsByStatus, long awaitingHuman,
			long unsettledTransactional, List<UnsettledCall> oldestUnsettled) {
	}

	/** Replays over a window. */
	public record Window(String window, long calls, long replays, double replayRate) {
	}

	/** A call still attempting or unknown. */
	public record UnsettledCall(String key, String tool, String runId, LedgerStatus status, Instant startedAt,
			int reconcileAttempts) {
	}

	@ReadOperation
	public Report report() {
		ReplayStatistics statistics = this.ledger.replayStatistics(this.window);
		List<UnsettledCall> oldest = this.ledger.oldestUnsettled(20)
			.stream()
			.map(IdempotencyEndpoint::unsettled)
			.toList();
		return new Report(this.ledger.tableName(),
				new Window(this.window.toString(), statistics.calls(), statistics.replays(), statistics.replayRate()),
				this.ledger.countByStatus(), this.ledger.countAwaitingHuman(this.humanAfterAttempts),
				this.ledger.countUnsettledOf(this.transactionalTools.get(), this.staleAfter), oldest);
	}

	private static UnsettledCall unsettled(LedgerEntry entry) {
		return new UnsettledCall(entry.key().value(), entry.tool(), entry.runId(), entry.status(), entry.startedAt(),
				entry.reconcileAttempts());
	}

}
