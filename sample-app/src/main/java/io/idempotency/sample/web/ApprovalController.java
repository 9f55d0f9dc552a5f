package io.idempotency.sample.web;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.Approvals;
import io.idempotency.sample.approval.ResumableRuns;

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
 * The operator panel's approvals: the calls that wait for a person's approval before they act, and the
 * decision on each, through {@link Approvals}. As for settlements, the person is the name typed in the panel. A
 * refused decision answers 409 with the refusal's message and reason; nothing was written. Once decided, the
 * call's run is offered to resume ({@link ResumableRuns}).
 */
@RestController
@RequestMapping("/api/approvals")
public class ApprovalController {

	/** The most calls the panel lists. */
	static final int LISTED = 50;

	/** A call that waits for approval, as the panel lists it; its age in seconds, by the database clock. */
	public record AwaitingApproval(String key, String tool, String runId, String userId, String arguments,
			String reason, long ageSeconds) {
	}

	/**
	 * A decision as the panel sends it.
	 *
	 * @param approver who decides, as typed in the panel
	 * @param reason why: for a rejection, what the model is told
	 */
	public record Decision(String approver, String reason) {
	}

	/** A call after its decision: {@code status} {@code approved} or {@code rejected}. */
	public record Decided(String key, String tool, String runId, String userId, String status, String decidedBy,
			String decisionReason, String message) {
	}

	private final ObjectProvider<Approvals> approvals;

	private final ResumableRuns resumable;

	ApprovalController(ObjectProvider<Approvals> approvals, ResumableRuns resumable) {
		this.approvals = approvals;
		this.resumable = resumable;
	}

	/** The first calls that wait for approval, oldest first. */
	@GetMapping
	public List<AwaitingApproval> awaiting() {
		Approvals approvals = this.approvals.getIfAvailable();
		if (approvals == null) {
			return List.of();
		}
		return approvals.awaiting(null, 0, LISTED).stream().map((request) -> {
			LedgerEntry row = request.entry();
			return new AwaitingApproval(row.key().value(), row.tool(), row.runId(), row.userId(), row.arguments(),
					request.reason(), request.age().toSeconds());
		}).toList();
	}

	/** The runs a decision left to resume, the latest decision first. */
	@GetMapping("/resumable")
	public List<ResumableRuns.Resumable> resumable() {
		return this.resumable.all();
	}

	/** Approves the call: it acts once its run is resumed. */
	@PostMapping("/{key}/approve")
	public Decided approve(@PathVariable String key, @RequestBody Decision decision) {
		ApprovalRequest call = approvals().approve(new IdempotencyKey(key), decision.approver(), decision.reason());
		return decided(call, "approved by " + call.decidedBy() + ": resume the run, and the call acts once");
	}

	/** Rejects the call: it never acts, and its run, resumed, is told the reason. */
	@PostMapping("/{key}/reject")
	public Decided reject(@PathVariable String key, @RequestBody Decision decision) {
		ApprovalRequest call = approvals().reject(new IdempotencyKey(key), decision.approver(), decision.reason());
		return decided(call, "rejected by " + call.decidedBy() + ": resume the run, and the model is told why");
	}

	@ExceptionHandler(ApprovalRefusedException.class)
	ResponseEntity<Map<String, String>> refused(ApprovalRefusedException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.body(Map.of("error", String.valueOf(ex.getMessage()), "reason", ex.reason().name()));
	}

	/** A key that is not one (not 64 hex characters), or idempotency disabled. */
	@ExceptionHandler({ IllegalArgumentException.class, IllegalStateException.class })
	ResponseEntity<Map<String, String>> badRequest(RuntimeException ex) {
		return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(Map.of("error", String.valueOf(ex.getMessage())));
	}

	private Approvals approvals() {
		Approvals approvals = this.approvals.getIfAvailable();
		if (approvals == null) {
			throw new IllegalStateException("Idempotency is disabled: there are no calls to approve");
		}
		return approvals;
	}

	private static Decided decided(ApprovalRequest call, String message) {
		LedgerEntry row = call.entry();
		return new Decided(row.key().value(), row.tool(), row.runId(), row.userId(),
				row.status().name().toLowerCase(Locale.ROOT), call.decidedBy(), call.decisionReason(),
				row.tool() + " of run " + row.runId() + " " + message);
	}

}
