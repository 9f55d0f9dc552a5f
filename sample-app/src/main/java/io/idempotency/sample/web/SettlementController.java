package io.idempotency.sample.web;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.SettlementRefusedException;
import io.idempotency.reconcile.Settlements;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The page's operator panel: the calls the reconciler handed to a human, and their settlement by hand, through
 * the starter's {@link Settlements}. The sample has no login: the operator is the name typed in the panel, sent
 * with each settlement. A refused settlement answers 409 with the refusal's message and reason; nothing was
 * written.
 */
@RestController
@RequestMapping("/api/settlements")
public class SettlementController {

	/** A call that waits for a human, as the panel lists it; its age in seconds, by the database clock. */
	public record AwaitingCall(String key, String tool, String runId, String userId, String arguments, String error,
			int attempts, long ageSeconds) {
	}

	/**
	 * A settlement as the panel sends it.
	 *
	 * @param operator who settles, as typed in the panel
	 * @param reason why: for a call settled as failed, the error a repeat of it is answered with
	 * @param result the result as JSON, for a call settled as succeeded
	 */
	public record Settlement(String operator, String reason, String result) {
	}

	/** A call after its settlement: {@code status} {@code succeeded} or {@code failed}, or unsettled when sent back. */
	public record Settled(String key, String tool, String runId, String status, String settledBy, String settleReason,
			String message) {
	}

	private final ObjectProvider<Settlements> settlements;

	SettlementController(ObjectProvider<Settlements> settlements) {
		this.settlements = settlements;
	}

	/** The first {@value CallFilter#DEFAULT_LIMIT} calls that wait for a human, oldest first. */
	@GetMapping
	public List<AwaitingCall> awaiting() {
		Settlements settlements = this.settlements.getIfAvailable();
		if (settlements == null) {
			return List.of();
		}
		return settlements.awaitingHuman(CallFilter.all()).calls().stream().map((call) -> {
			LedgerEntry row = call.entry();
			return new AwaitingCall(row.key().value(), row.tool(), row.runId(), row.userId(), row.arguments(),
					row.error(), row.reconcileAttempts(), call.age().toSeconds());
		}).toList();
	}

	/** Settles the call as succeeded, with the result it would have returned. */
	@PostMapping("/{key}/succeeded")
	public Settled succeeded(@PathVariable String key, @RequestBody Settlement settlement) {
		CallRecord call = settlements().settleSucceeded(new IdempotencyKey(key), settlement.result(),
				settlement.operator(), settlement.reason());
		return settled(call, "settled as succeeded by " + call.settledBy() + ": a repeat of the call replays its result");
	}

	/** Settles the call as failed: a repeat of it is answered as a previous failure, with the reason. */
	@PostMapping("/{key}/failed")
	public Settled failed(@PathVariable String key, @RequestBody Settlement settlement) {
		CallRecord call = settlements().settleFailed(new IdempotencyKey(key), settlement.operator(),
				settlement.reason());
		return settled(call, "settled as failed by " + call.settledBy() + ": a repeat of the call is told so");
	}

	/** Sends the call back to the reconciler, for one more try at its next pass. */
	@PostMapping("/{key}/retry")
	public Settled retry(@PathVariable String key, @RequestBody Settlement settlement) {
		CallRecord call = settlements().retry(new IdempotencyKey(key), settlement.operator(), settlement.reason());
		return settled(call, "sent back to the reconciler by " + call.settledBy() + ": it tries the call once more");
	}

	@ExceptionHandler(SettlementRefusedException.class)
	ResponseEntity<Map<String, String>> refused(SettlementRefusedException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.body(Map.of("error", String.valueOf(ex.getMessage()), "reason", ex.reason().name()));
	}

	/** A key that is not one (not 64 hex characters), or idempotency disabled. */
	@ExceptionHandler({ IllegalArgumentException.class, IllegalStateException.class })
	ResponseEntity<Map<String, String>> badRequest(RuntimeException ex) {
		return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", String.valueOf(ex.getMessage())));
	}

	private Settlements settlements() {
		Settlements settlements = this.settlements.getIfAvailable();
		if (settlements == null) {
			throw new IllegalStateException("Idempotency is disabled: there are no calls to settle");
		}
		return settlements;
	}

	private static Settled settled(CallRecord call, String message) {
		LedgerEntry row = call.entry();
		String status = row.status().name().toLowerCase(Locale.ROOT);
		return new Settled(row.key().value(), row.tool(), row.runId(), status, call.settledBy(), call.settleReason(),
				row.tool() + " of run " + row.runId() + " " + message);
	}

}
