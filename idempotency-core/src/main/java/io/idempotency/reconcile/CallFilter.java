package io.idempotency.reconcile;

import java.time.Duration;
import java.util.Objects;

import io.idempotency.ledger.SettlementQueue;

/**
 * Which unsettled calls an operator lists, and one page of them: of a tool or of every tool, claimed at least
 * so long ago, at most {@code limit} of them, after the call whose row id is {@code after}. Pages follow each
 * other in the order of the rows' ids, a cursor that stays stable while calls are claimed and settled: a page's
 * {@link Settlements.Page#next() next} filter reads on from its last call.
 *
 * <p>A filter holds only what every database can take: {@code olderThan} from zero to
 * {@link #MAX_OLDER_THAN} (further back, PostgreSQL's timestamps end, and H2's arithmetic overflows into the
 * future), and a tool's name without control characters (PostgreSQL refuses U+0000 in text). Anything else is
 * an {@link IllegalArgumentException} that names the parameter.
 *
 * @param tool the tool, or {@code null} for every tool
 * @param olderThan how long ago a call must have been claimed, at most {@link #MAX_OLDER_THAN}
 * @param limit the most calls on one page
 * @param after the row id after which the page starts; zero for the first page
 */
public record CallFilter(String tool, Duration olderThan, int limit, long after) {

	/** How many calls a page holds unless told otherwise. */
	public static final int DEFAULT_LIMIT = 50;

	/** How many calls a page may hold at most. */
	public static final int MAX_LIMIT = 1000;

	/** The furthest back a filter reaches: 36,525 days (100 years). */
	public static final Duration MAX_OLDER_THAN = SettlementQueue.MAX_OLDER_THAN;

	public CallFilter {
		Objects.requireNonNull(olderThan, "olderThan");
		if (olderThan.isNegative() || olderThan.compareTo(MAX_OLDER_THAN) > 0) {
			throw new IllegalArgumentException("olderThan must be from zero to " + MAX_OLDER_THAN.toDays()
					+ " days (100 years), but was " + olderThan);
		}
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException("limit must be from 1 to " + MAX_LIMIT + ", but was " + limit);
		}
		if (after < 0) {
			throw new IllegalArgumentException("after must be zero or more, but was " + after);
		}
		if (tool != null && tool.isBlank()) {
			throw new IllegalArgumentException("tool must be null (every tool) or a tool's name, but was blank");
		}
		if (tool != null && tool.chars().anyMatch(Character::isISOControl)) {
			throw new IllegalArgumentException("tool must be a tool's name, but holds a control character");
		}
	}

	/** The first page of every tool's calls, of any age, {@value #DEFAULT_LIMIT} calls a page. */
	public static CallFilter all() {
		return new CallFilter(null, Duration.ZERO, DEFAULT_LIMIT, 0);
	}

	/** This filter for one tool's calls. */
	public CallFilter tool(String tool) {
		return new CallFilter(tool, this.olderThan, this.limit, this.after);
	}

	/** This filter for calls claimed at least so long ago. */
	public CallFilter olderThan(Duration olderThan) {
		return new CallFilter(this.tool, olderThan, this.limit, this.after);
	}

	/** This filter with pages of at most so many calls. */
	public CallFilter limit(int limit) {
		return new CallFilter(this.tool, this.olderThan, limit, this.after);
	}

	/** This filter for the page that starts after the row of this id. */
	public CallFilter after(long after) {
		return new CallFilter(this.tool, this.olderThan, this.limit, after);
	}

}
