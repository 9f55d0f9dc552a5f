package io.idempotency.autoconfigure.observability;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.CallRecord;
import io.idempotency.ledger.LedgerEntry;
import io.idempotency.reconcile.CallFilter;
import io.idempotency.reconcile.SettlementRefusedException;
import io.idempotency.reconcile.SettlementRefusedException.Reason;
import io.idempotency.reconcile.Settlements;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.util.RawValue;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;
import org.springframework.boot.convert.DurationStyle;

/**
 * {@code /actuator/idempotencycalls}: the calls that wait for a human, and their settlement by hand, over HTTP.
 * Unlike {@code /actuator/idempotency}, it shows what the ledger stored of each call (arguments, redacted as
 * stored, results and errors), and its write operation decides what a repeat of a call is told: it is an
 * endpoint of its own so that an application exposes and secures it apart from the report.
 *
 * <ul>
 * <li>{@code GET /actuator/idempotencycalls?tool=&olderThan=&limit=&after=}: one page of the calls that wait for
 * a human, in the order of their rows' ids; {@code nextAfter} reads the next page.</li>
 * <li>{@code GET /actuator/idempotencycalls/{key}}: one call, settled or not.</li>
 * <li>{@code POST /actuator/idempotencycalls/{key}} with a JSON body
 * {@code {"settle": "succeeded"|"failed"|"retry", "result": "<the result as JSON text>", "reason": "...",
 * "operator": "..."}}: settles the call.</li>
 * </ul>
 *
 * <p>Who settles is the request's authenticated user; {@code operator} is then left out (or is that user's
 * name). Only without an authenticated user is {@code operator} required, and then it is the caller's word. A
 * refused settlement writes nothing and is answered 400 (the request itself is wrong), 404 (the ledger has no
 * such call) or 409 (the call is settled already, no longer or not yet waiting for a human, or being
 * reconciled), with a body that names the key, the reason ({@code refused}) and a message.
 *
 * <p>Read-only unless the application allows more ({@code management.endpoint.idempotencycalls.access=unrestricted}):
 * a settlement decides what a repeat of a call is told, so an application that exposes every endpoint does not
 * let anyone who reaches it settle calls. Only that setting opens it, never Boot's settings for every endpoint
 * ({@code management.endpoints.access.default}, the older {@code enabled-by-default}) nor the older
 * {@code management.endpoint.idempotencycalls.enabled}: the starter's {@code OperationFilter} leaves the
 * settlement unmapped without it, and the endpoint refuses it itself (405, nothing written) where a discoverer
 * maps it without that filter (Cloud Foundry's). Web only: over JMX no user can be told from another.
 *
 * <p>Arguments and results are the stored JSON, written as the ledger holds it: never read into numbers, so
 * that an amount is shown to the digit, as in the statement an operator looks for it in.
 */
@WebEndpoint(id = "idempotencycalls", defaultAccess = Access.READ_ONLY)
public class IdempotencyCallsEndpoint {

	private static final JsonNodeFactory nodes = JsonNodeFactory.instance;

	private final Settlements settlements;

	private final Access access;

	/** Checks that stored text is one JSON value, and nothing after it, before it is written out as it is. */
	private static final JsonMapper json = JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

	/**
	 * @param access the endpoint's access, as the application set it: it settles only where that is
	 * {@link Access#UNRESTRICTED}, also when a discoverer maps its write operation without Boot's access checks
	 * (Cloud Foundry's does)
	 */
	public IdempotencyCallsEndpoint(Settlements settlements, Access access) {
		this.settlements = Objects.requireNonNull(settlements, "settlements");
		this.access = Objects.requireNonNull(access, "access");
	}

	/** One page of calls, and the {@code after} of the next page, or {@code null} after the last. */
	public record Calls(List<Call> calls, @Nullable Long nextAfter) {
	}

	/**
	 * A call as the ledger holds it.
	 * @param arguments as stored, sensitive values redacted: the stored JSON as it is, numbers to the digit, or
	 * text where the row does not hold JSON
	 * @param result as stored, likewise
	 * @param age how long ago it was claimed (ISO-8601)
	 * @param beingReconciled whether a reconciler holds it at this moment
	 * @param settledBy who last settled it by hand, or sent it back to the reconciler
	 */
	public record Call(long id, String key, String tool, String runId, @Nullable String userId, String status,
			@Nullable JsonNode arguments, @Nullable JsonNode result, @Nullable String error, Instant startedAt,
			@Nullable Instant finishedAt, String age, int reconcileAttempts, boolean beingReconciled,
			@Nullable String settledBy, @Nullable Instant settledAt, @Nullable String settleReason) {
	}

	/**
	 * Why a request was refused; nothing was written.
	 * @param key the key the request named, as given
	 * @param refused {@code unknown_key}, {@code already_settled}, {@code being_reconciled},
	 * {@code not_awaiting_human}, {@code missing_reason}, {@code result_refused} or {@code invalid_request}; for a
	 * decision of {@code /actuator/idempotencyapprovals}, {@code unknown_key}, {@code not_awaiting_approval},
	 * {@code already_decided}, {@code missing_reason} or {@code invalid_request}
	 */
	public record Refusal(@Nullable String key, String refused, String message) {
	}

	/**
	 * One page of the calls that wait for a human.
	 * @param tool only this tool's calls
	 * @param olderThan only calls claimed at least so long ago ({@code 30m}, {@code 2h}, {@code PT1H}), at most
	 * 100 years
	 * @param limit the most calls on the page, 1 to 1000 (50 by default)
	 * @param after the {@code nextAfter} of the previous page
	 */
	@ReadOperation
	public WebEndpointResponse<Object> awaitingHuman(@Nullable String tool, @Nullable String olderThan,
			@Nullable String limit, @Nullable String after) {
		CallFilter filter;
		try {
			filter = new CallFilter((tool == null || tool.isBlank()) ? null : tool.trim(), duration(olderThan),
					number(limit, "limit", CallFilter.DEFAULT_LIMIT, 1, CallFilter.MAX_LIMIT),
					number(after, "after", 0, 0, Long.MAX_VALUE));
		}
		catch (InvalidRequest ex) {
			return invalid(null, ex.getMessage());
		}
		catch (IllegalArgumentException ex) {
			// What the ledger cannot take (an olderThan past its bound, a control character in the tool's name).
			return invalid(null, ex.getMessage());
		}
		Settlements.Page page = this.settlements.awaitingHuman(filter);
		List<Call> calls = page.calls().stream().map(this::call).toList();
		return new WebEndpointResponse<>(new Calls(calls, page.hasMore() ? page.next().after() : null));
	}

	/** One call, settled or not. */
	@ReadOperation
	public WebEndpointResponse<Object> call(@Selector String key) {
		IdempotencyKey parsed;
		try {
			parsed = key(key);
		}
		catch (InvalidRequest ex) {
			return invalid(key, ex.getMessage());
		}
		return this.settlements.find(parsed)
			.<WebEndpointResponse<Object>>map((call) -> new WebEndpointResponse<>(call(call)))
			.orElseGet(() -> refused(key, Reason.UNKNOWN_KEY, "The ledger has no call of key " + key));
	}

	/**
	 * Settles one call that waits for a human.
	 * @param settle {@code succeeded}, {@code failed} or {@code retry} (back to the reconciler)
	 * @param result with {@code succeeded}: the result the call returned, as JSON text; left out for a tool that
	 * returns nothing
	 * @param reason why; with {@code failed}, the error a repeat of the call is answered with
	 * @param operator who settles, only where the request has no authenticated user
	 */
	@WriteOperation
	public WebEndpointResponse<Object> settle(@Selector String key, @Nullable String settle, @Nullable String result,
			@Nullable String reason, @Nullable String operator, SecurityContext securityContext) {
		if (this.access != Access.UNRESTRICTED) {
			return new WebEndpointResponse<>(new Refusal(key, "settling_not_open",
					"Settling calls over HTTP is not open here, nothing was written: the application opens it with "
							+ IdempotencyCallsAccess.PROPERTY + "=unrestricted."),
					405);
		}
		IdempotencyKey parsed;
		String who;
		Kind kind;
		try {
			parsed = key(key);
			kind = kind(settle);
			who = operator(securityContext.getPrincipal(), operator, "settlement", "the call is settled",
					"who settles the call");
			if (kind != Kind.SUCCEEDED && result != null) {
				throw new InvalidRequest("a result is given only to settle a call as succeeded, not as "
						+ kind.name().toLowerCase(Locale.ROOT));
			}
		}
		catch (InvalidRequest ex) {
			return invalid(key, ex.getMessage());
		}
		catch (MissingOperator ex) {
			return refused(key, Reason.MISSING_REASON, ex.getMessage());
		}
		try {
			CallRecord settled = switch (kind) {
				case SUCCEEDED -> this.settlements.settleSucceeded(parsed, result, who, reason);
				case FAILED -> this.settlements.settleFailed(parsed, who, reason);
				case RETRY -> this.settlements.retry(parsed, who, reason);
			};
			return new WebEndpointResponse<>(call(settled));
		}
		catch (SettlementRefusedException ex) {
			return refused(key, ex.reason(), ex.getMessage());
		}
	}

	private enum Kind {

		SUCCEEDED, FAILED, RETRY

	}

	private static Kind kind(@Nullable String settle) {
		if (settle == null || settle.isBlank()) {
			throw new InvalidRequest("say how to settle the call: 'settle' is succeeded, failed or retry");
		}
		return switch (settle.trim().toLowerCase(Locale.ROOT)) {
			case "succeeded" -> Kind.SUCCEEDED;
			case "failed" -> Kind.FAILED;
			case "retry" -> Kind.RETRY;
			default -> throw new InvalidRequest(
					"'settle' is succeeded, failed or retry, but was '" + settle.trim() + "'");
		};
	}

	/**
	 * Who settles or decides: the authenticated user, or, only without one, the operator the request names.
	 * @param request what is refused without one ({@code settlement})
	 * @param inTheNameOf what is done in the user's name ({@code the call is settled})
	 * @param who who {@code operator} names ({@code who settles the call})
	 */
	static String operator(@Nullable Principal principal, @Nullable String operator, String request,
			String inTheNameOf, String who) {
		String given = (operator == null || operator.isBlank()) ? null : operator.trim();
		String user = (principal != null) ? principal.getName() : null;
		if (user != null && !user.isBlank()) {
			if (given != null && !given.equals(user)) {
				throw new InvalidRequest(inTheNameOf + " in the name of the authenticated user '" + user
						+ "': leave 'operator' out, or give that name");
			}
			return user;
		}
		if (given == null) {
			throw new MissingOperator("The " + request + " is refused, nothing was written: the request has no"
					+ " authenticated user, so 'operator' must say " + who);
		}
		return given;
	}

	static IdempotencyKey key(String key) {
		try {
			return new IdempotencyKey(key);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRequest("a key is 64 lowercase hex characters, but was '" + key + "'");
		}
	}

	private static Duration duration(@Nullable String olderThan) {
		if (olderThan == null || olderThan.isBlank()) {
			return Duration.ZERO;
		}
		Duration parsed;
		try {
			parsed = DurationStyle.detectAndParse(olderThan.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRequest("'olderThan' is a duration such as 30m, 2h or PT1H, but was '" + olderThan + "'");
		}
		if (parsed.isNegative()) {
			throw new InvalidRequest("'olderThan' must be zero or more, but was '" + olderThan + "'");
		}
		return parsed;
	}

	static int number(@Nullable String text, String name, int otherwise, int min, int max) {
		return (int) number(text, name, (long) otherwise, min, (long) max);
	}

	static long number(@Nullable String text, String name, long otherwise, long min, long max) {
		if (text == null || text.isBlank()) {
			return otherwise;
		}
		try {
			long value = Long.parseLong(text.trim());
			if (value >= min && value <= max) {
				return value;
			}
		}
		catch (NumberFormatException ex) {
			// Answered below.
		}
		throw new InvalidRequest("'" + name + "' is a whole number from " + min + " to " + max + ", but was '"
				+ text + "'");
	}

	private Call call(CallRecord record) {
		LedgerEntry entry = record.entry();
		return new Call(entry.id(), entry.key().value(), entry.tool(), entry.runId(), entry.userId(),
				entry.status().name().toLowerCase(Locale.ROOT), node(entry.arguments()), node(entry.result()),
				entry.error(), entry.startedAt(), entry.finishedAt(), record.age().toString(),
				entry.reconcileAttempts(), record.leased(), record.settledBy(), record.settledAt(),
				record.settleReason());
	}

	/**
	 * The stored JSON written into the answer as the ledger holds it, never read into numbers: {@code 12.50}
	 * stays {@code 12.50} and {@code 0.123456789012345678} keeps every digit. Text where the row holds something
	 * other than one JSON value (H2's text column, edited).
	 */
	static @Nullable JsonNode node(@Nullable String stored) {
		if (stored == null) {
			return null;
		}
		try {
			if (!json.readTree(stored).isMissingNode()) {
				return nodes.rawValueNode(new RawValue(stored));
			}
		}
		catch (JacksonException ex) {
			// Not JSON: answered as text.
		}
		return nodes.stringNode(stored);
	}

	static WebEndpointResponse<Object> invalid(@Nullable String key, String why) {
		return new WebEndpointResponse<>(new Refusal(key, "invalid_request",
				"The request is refused, nothing was written: " + why), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	private static WebEndpointResponse<Object> refused(@Nullable String key, Reason reason, String message) {
		int status = switch (reason) {
			case UNKNOWN_KEY -> WebEndpointResponse.STATUS_NOT_FOUND;
			case ALREADY_SETTLED, BEING_RECONCILED, NOT_AWAITING_HUMAN -> 409;
			case MISSING_REASON, INVALID_REQUEST, RESULT_REFUSED -> WebEndpointResponse.STATUS_BAD_REQUEST;
		};
		return new WebEndpointResponse<>(new Refusal(key, reason.name().toLowerCase(Locale.ROOT), message), status);
	}

	/** A request that cannot be read: answered 400. */
	static final class InvalidRequest extends RuntimeException {

		private static final long serialVersionUID = 1L;

		InvalidRequest(String message) {
			super(message, null, false, false);
		}

	}

	/** A settlement that does not say who settles: refused as the core refuses one, 400. */
	static final class MissingOperator extends RuntimeException {

		private static final long serialVersionUID = 1L;

		MissingOperator(String message) {
			super(message, null, false, false);
		}

	}

}
