package io.idempotency.autoconfigure.observability;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.idempotency.autoconfigure.observability.IdempotencyCallsEndpoint.InvalidRequest;
import io.idempotency.autoconfigure.observability.IdempotencyCallsEndpoint.MissingOperator;
import io.idempotency.autoconfigure.observability.IdempotencyCallsEndpoint.Refusal;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.ApprovalRefusedException;
import io.idempotency.reconcile.ApprovalRefusedException.Reason;
import io.idempotency.reconcile.Approvals;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * {@code /actuator/idempotencyapprovals}: the calls that wait for a person's approval before their effect, and
 * the decision on each, over HTTP. It is secured as {@code /actuator/idempotencycalls} is: an endpoint of its own,
 * read-only unless the application sets its own access
 * ({@code management.endpoint.idempotencyapprovals.access=unrestricted}), never through Boot's settings for every
 * endpoint; web only.
 *
 * <ul>
 * <li>{@code GET /actuator/idempotencyapprovals?tool=&limit=&after=}: one page of the calls that wait for
 * approval, in the order of their rows' ids; {@code nextAfter} reads the next page.</li>
 * <li>{@code GET /actuator/idempotencyapprovals/{key}}: one call that asked for approval, waiting or decided.</li>
 * <li>{@code POST /actuator/idempotencyapprovals/{key}} with a JSON body
 * {@code {"decision": "approve"|"reject", "reason": "...", "operator": "..."}}: decides the call.</li>
 * </ul>
 *
 * <p>Who decides is the request's authenticated user, as for a settlement; only without one is {@code operator}
 * required, and then it is the caller's word. A refused decision writes nothing and is answered 400 (the request
 * itself is wrong), 404 (no call of the key asked for approval) or 409 (the call does not wait for approval, or
 * was decided already), with a body that names the key, the reason ({@code refused}) and a message. Of two
 * decisions at once, exactly one is written; the other is answered 409 {@code already_decided}.
 */
@WebEndpoint(id = "idempotencyapprovals", defaultAccess = Access.READ_ONLY)
public class IdempotencyApprovalsEndpoint {

	private final Approvals approvals;

	private final Access access;

	/**
	 * @param access the endpoint's access, as the application set it: it decides only where that is
	 * {@link Access#UNRESTRICTED}, also when a discoverer maps its write operation without Boot's access checks
	 */
	public IdempotencyApprovalsEndpoint(Approvals approvals, Access access) {
		this.approvals = Objects.requireNonNull(approvals, "approvals");
		this.access = Objects.requireNonNull(access, "access");
	}

	/** One page of calls, and the {@code after} of the next page, or {@code null} after the last. */
	public record Calls(List<Call> calls, @Nullable Long nextAfter) {
	}

	/**
	 * A call that asked for approval, as the ledger holds it.
	 * @param status {@code awaiting_approval}, {@code approved}, {@code rejected} or {@code expired}; once an approved call
	 * was executed, what became of it
	 * @param arguments as stored, sensitive values redacted: the stored JSON as it is, numbers to the digit
	 * @param reason why the call needs approval, as its tool said
	 * @param age how long ago it asked for approval (ISO-8601)
	 * @param decidedBy who approved or rejected it; none for a call that expired
	 * @param decisionReason the person's reason, or why it expired
	 */
	public record Call(long id, String key, String tool, String runId, @Nullable String userId, String status,
			@Nullable JsonNode arguments, String reason, Instant startedAt, String age, @Nullable String decidedBy,
			@Nullable Instant decidedAt, @Nullable String decisionReason) {
	}

	/**
	 * One page of the calls that wait for approval.
	 * @param tool only this tool's calls
	 * @param limit the most calls on the page, 1 to 1000 (50 by default)
	 * @param after the {@code nextAfter} of the previous page
	 */
	@ReadOperation
	public WebEndpointResponse<Object> awaitingApproval(@Nullable String tool, @Nullable String limit,
			@Nullable String after) {
		int pageSize;
		long afterId;
		try {
			pageSize = IdempotencyCallsEndpoint.number(limit, "limit", 50, 1, 1000);
			afterId = IdempotencyCallsEndpoint.number(after, "after", 0L, 0L, Long.MAX_VALUE);
		}
		catch (InvalidRequest ex) {
			return IdempotencyCallsEndpoint.invalid(null, ex.getMessage());
		}
		// One more than the page, to tell whether there is a next one.
		List<ApprovalRequest> read = this.approvals.awaiting((tool == null || tool.isBlank()) ? null : tool.trim(),
				afterId, pageSize + 1);
		List<Call> calls = read.stream().limit(pageSize).map(IdempotencyApprovalsEndpoint::call).toList();
		return new WebEndpointResponse<>(
				new Calls(calls, (read.size() > pageSize) ? calls.get(calls.size() - 1).id() : null));
	}

	/** One call that asked for approval, waiting or decided. */
	@ReadOperation
	public WebEndpointResponse<Object> approval(@Selector String key) {
		IdempotencyKey parsed;
		try {
			parsed = IdempotencyCallsEndpoint.key(key);
		}
		catch (InvalidRequest ex) {
			return IdempotencyCallsEndpoint.invalid(key, ex.getMessage());
		}
		return this.approvals.find(parsed)
			.<WebEndpointResponse<Object>>map((call) -> new WebEndpointResponse<>(call(call)))
			.orElseGet(() -> refused(key, Reason.UNKNOWN_KEY, "No call of key " + key + " asked for approval"));
	}

	/**
	 * Approves or rejects one call that waits for approval.
	 * @param decision {@code approve} (the call executes when its run calls it again) or {@code reject} (it never
	 * executes, and its run is told the reason)
	 * @param reason why
	 * @param operator who decides, only where the request has no authenticated user
	 */
	@WriteOperation
	public WebEndpointResponse<Object> decide(@Selector String key, @Nullable String decision,
			@Nullable String reason, @Nullable String operator, SecurityContext securityContext) {
		if (this.access != Access.UNRESTRICTED) {
			return new WebEndpointResponse<>(new Refusal(key, "deciding_not_open",
					"Deciding on approvals over HTTP is not open here, nothing was written: the application opens it"
							+ " with " + IdempotencyCallsAccess.property(IdempotencyCallsAccess.APPROVALS)
							+ "=unrestricted."),
					405);
		}
		IdempotencyKey parsed;
		boolean approve;
		String who;
		try {
			parsed = IdempotencyCallsEndpoint.key(key);
			approve = approve(decision);
			who = IdempotencyCallsEndpoint.operator(securityContext.getPrincipal(), operator, "decision",
					"the call is decided", "who decides");
		}
		catch (InvalidRequest ex) {
			return IdempotencyCallsEndpoint.invalid(key, ex.getMessage());
		}
		catch (MissingOperator ex) {
			return refused(key, Reason.MISSING_REASON, ex.getMessage());
		}
		try {
			ApprovalRequest decided = approve ? this.approvals.approve(parsed, who, reason)
					: this.approvals.reject(parsed, who, reason);
			return new WebEndpointResponse<>(call(decided));
		}
		catch (ApprovalRefusedException ex) {
			return refused(key, ex.reason(), ex.getMessage());
		}
	}

	private static boolean approve(@Nullable String decision) {
		if (decision == null || decision.isBlank()) {
			throw new InvalidRequest("say what is decided: 'decision' is approve or reject");
		}
		return switch (decision.trim().toLowerCase(Locale.ROOT)) {
			case "approve" -> true;
			case "reject" -> false;
			default -> throw new InvalidRequest("'decision' is approve or reject, but was '" + decision.trim() + "'");
		};
	}

	private static Call call(ApprovalRequest request) {
		LedgerEntry entry = request.entry();
		return new Call(entry.id(), entry.key().value(), entry.tool(), entry.runId(), entry.userId(),
				entry.status().name().toLowerCase(Locale.ROOT), IdempotencyCallsEndpoint.node(entry.arguments()), request.reason(),
				entry.startedAt(), request.age().toString(), request.decidedBy(), request.decidedAt(),
				request.decisionReason());
	}

	static WebEndpointResponse<Object> refused(@Nullable String key, Reason reason, String message) {
		int status = switch (reason) {
			case UNKNOWN_KEY -> WebEndpointResponse.STATUS_NOT_FOUND;
			case NOT_AWAITING_APPROVAL, ALREADY_DECIDED -> 409;
			case MISSING_REASON, INVALID_REQUEST -> WebEndpointResponse.STATUS_BAD_REQUEST;
		};
		return new WebEndpointResponse<>(new Refusal(key, reason.name().toLowerCase(Locale.ROOT), message), status);
	}

}
