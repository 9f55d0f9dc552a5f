package io.idempotency.ledger;

import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * What differs between databases: the clock, interval arithmetic, JSON parameters, the atomic claim and
 * bounded deletes. Everything else is shared SQL in {@link LedgerStatements}.
 */
enum LedgerDialect {

	/** PostgreSQL, and engines compatible with it. The claim never raises an error in the server log. */
	POSTGRESQL("postgresql", "CURRENT_TIMESTAMP") {

		@Override
		String nowMinusMicros() {
			return "(CURRENT_TIMESTAMP - CAST(? AS BIGINT) * INTERVAL '1 microsecond')";
		}

		@Override
		String nowPlusMicros() {
			return "(CURRENT_TIMESTAMP + CAST(? AS BIGINT) * INTERVAL '1 microsecond')";
		}

		@Override
		String json() {
			return "CAST(? AS JSONB)";
		}

		@Override
		String claim(String table, boolean awaitingApproval) {
			// One round trip either way: the row that is there is read, or the claim is inserted. The insert runs
			// only when the read found nothing, so a replay uses up no identity value and writes nothing.
			return "WITH existing AS (SELECT " + LedgerStatements.ANSWER_COLUMNS + " FROM " + table
					+ " WHERE idempotency_key = ?), won AS (INSERT INTO " + table + " (" + claimColumns(awaitingApproval)
					+ ") SELECT ?, ?, ?, ?, CAST(? AS JSONB), " + claimStatus(awaitingApproval) + ", CURRENT_TIMESTAMP" + reasonParameter(awaitingApproval)
					+ " WHERE NOT EXISTS (SELECT FROM existing) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id)"
					+ " SELECT won.id AS won_id, existing.* FROM (SELECT 1) AS one LEFT JOIN won ON TRUE"
					+ " LEFT JOIN existing ON TRUE";
		}

		@Override
		Object[] claimValues(ClaimRequest request, String storedArguments) {
			String key = request.key().value();
			return withApprovalReason(request,
					new Object[] { key, key, request.runId(), request.userId(), request.tool(), storedArguments });
		}

		@Override
		boolean writesReturnRows() {
			return true;
		}

	},

	/** MariaDB 10.6+ and MySQL 8+; times are stored as UTC in DATETIME(6). */
	MYSQL("mysql", "UTC_TIMESTAMP(6)") {

		@Override
		String nowMinusMicros() {
			return "(UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND)";
		}

		@Override
		String nowPlusMicros() {
			return "(UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND)";
		}

		@Override
		String claim(String table, boolean awaitingApproval) {
			// IGNORE turns only the lost claim's duplicate key into a warning: the server logs no error, and
			// the driver none per replay. Every value is checked before it is sent (lengths, JSON), so nothing
			// else that IGNORE would let through can occur.
			return "INSERT IGNORE" + super.claim(table, awaitingApproval).substring("INSERT".length());
		}

		@Override
		String unsettled() {
			return "unsettled_since IS NOT NULL";
		}

		@Override
		String unsettledSince() {
			return "unsettled_since";
		}

		@Override
		String awaitingApproval() {
			return "awaiting_since IS NOT NULL";
		}

		@Override
		String awaitingApprovalSince() {
			return "awaiting_since";
		}

		@Override
		String purge(String table, String settledBefore) {
			// MySQL cannot select from the table it deletes from, but can bound a delete itself.
			return "DELETE FROM " + table + " WHERE " + settledBefore + " ORDER BY started_at LIMIT ?";
		}

		@Override
		Instant timestamp(ResultSet row, int column) throws SQLException {
			LocalDateTime utc = row.getObject(column, LocalDateTime.class);
			return (utc != null) ? utc.toInstant(ZoneOffset.UTC) : null;
		}

	},

	/** H2 2.x. */
	H2("h2", "CURRENT_TIMESTAMP") {

		@Override
		String nowMinusMicros() {
			return "DATEADD(MICROSECOND, -CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
		}

		@Override
		String nowPlusMicros() {
			return "DATEADD(MICROSECOND, CAST(? AS BIGINT), CURRENT_TIMESTAMP)";
		}

		@Override
		String claim(String table, boolean awaitingApproval) {
			// H2 has no insert that ignores a duplicate key, and builds an exception for every one: the insert
			// looks for the key first. A claim that commits after that look still fails on the unique key.
			return "INSERT INTO " + table + " (" + claimColumns(awaitingApproval) + ") SELECT ?, ?, ?, ?, " + json()
					+ ", " + claimStatus(awaitingApproval) + ", " + now() + reasonParameter(awaitingApproval)
					+ " WHERE NOT EXISTS (SELECT 1 FROM " + table + " WHERE idempotency_key = ?)";
		}

		@Override
		Object[] claimValues(ClaimRequest request, String storedArguments) {
			String key = request.key().value();
			Object[] values = withApprovalReason(request,
					new Object[] { key, request.runId(), request.userId(), request.tool(), storedArguments });
			Object[] withKey = java.util.Arrays.copyOf(values, values.length + 1);
			withKey[values.length] = key;
			return withKey;
		}

	};

	private final String platform;

	private final String now;

	LedgerDialect(String platform, String now) {
		this.platform = platform;
		this.now = now;
	}

	/** The dialect of the database a {@code DataSource} connects to, read from its JDBC metadata. */
	static LedgerDialect of(DataSource dataSource) {
		try {
			String product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
			return forProductName(product);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not tell which database the idempotency ledger is on", ex);
		}
	}

	/** The dialect of a database, by the product name its JDBC driver reports. */
	static LedgerDialect forProductName(String productName) {
		String name = productName.toLowerCase(Locale.ROOT);
		if (name.contains("postgres")) {
			return POSTGRESQL;
		}
		if (name.contains("mariadb") || name.contains("mysql")) {
			return MYSQL;
		}
		if (name.equals("h2")) {
			return H2;
		}
		throw new IllegalStateException("The idempotency ledger does not support " + productName
				+ "; it supports PostgreSQL, MariaDB, MySQL and H2");
	}

	/** The platform name in the schema scripts' file names: {@code schema-<platform>.sql}. */
	String platform() {
		return this.platform;
	}

	/** The database's current time. */
	String now() {
		return this.now;
	}

	/** The database's current time less a number of microseconds, given as one parameter. */
	abstract String nowMinusMicros();

	/** The database's current time plus a number of microseconds, given as one parameter. */
	abstract String nowPlusMicros();

	/** A JSON value given as one text parameter. */
	String json() {
		return "?";
	}

	/**
	 * The statement that claims a key, with the parameters {@link #claimValues} gives. Where the database's
	 * {@linkplain #writesReturnRows() writes return rows}, it returns the won row's id or the row it lost to;
	 * else it inserts one row or none.
	 */
	String claim(String table, boolean awaitingApproval) {
		return "INSERT INTO " + table + " (" + claimColumns(awaitingApproval) + ") VALUES (?, ?, ?, ?, " + json() + ", "
				+ claimStatus(awaitingApproval) + ", " + now() + reasonParameter(awaitingApproval) + ")";
	}

	/**
	 * The columns a claim inserts, in order: the key, run, user, tool and arguments, the status, the claim time,
	 * and, for a call that waits for approval, why it needs approval.
	 */
	static String claimColumns(boolean awaitingApproval) {
		return "idempotency_key, run_id, user_id, tool, arguments, status, started_at"
				+ (awaitingApproval ? ", approval_reason" : "");
	}

	/** The status a claim inserts: waiting for approval, or executing. */
	static String claimStatus(boolean awaitingApproval) {
		return awaitingApproval ? "'awaiting'" : "'attempting'";
	}

	/** The placeholder of the approval reason, after the claim time, for a claim that waits for approval. */
	static String reasonParameter(boolean awaitingApproval) {
		return awaitingApproval ? ", ?" : "";
	}

	/**
	 * The parameters of the {@linkplain #claim claim statement}, all text: the key, the run, the user, the tool
	 * and the stored arguments, in its order (with the key once more where it looks for the key first), and the
	 * approval reason of a call that waits for approval.
	 */
	Object[] claimValues(ClaimRequest request, String storedArguments) {
		return withApprovalReason(request, new Object[] { request.key().value(), request.runId(), request.userId(),
				request.tool(), storedArguments });
	}

	/** The values, with the request's approval reason after them if it needs approval. */
	static Object[] withApprovalReason(ClaimRequest request, Object[] values) {
		if (!request.needsApproval()) {
			return values;
		}
		Object[] withReason = java.util.Arrays.copyOf(values, values.length + 1);
		withReason[values.length] = request.approvalReason();
		return withReason;
	}

	/**
	 * Whether a write can return rows (data-modifying common table expressions, {@code RETURNING}): then the
	 * claim reads the row it loses to in its own round trip, and a lease finds and takes its rows in one
	 * statement that returns them.
	 */
	boolean writesReturnRows() {
		return false;
	}

	/** The condition of an unsettled row (attempting or unknown), as the reconciler's index serves it. */
	String unsettled() {
		return "status IN ('attempting', 'unknown')";
	}

	/** What orders the reconciler's queue: the claim time of unsettled rows. */
	String unsettledSince() {
		return "started_at";
	}

	/** The condition of a row that waits for a person's approval, as the index of those rows serves it. */
	String awaitingApproval() {
		return "status = 'awaiting'";
	}

	/** What orders the rows that wait for approval: when they asked for it. */
	String awaitingApprovalSince() {
		return "started_at";
	}

	/** Deletes at most one parameter's number of settled rows that match the given condition. */
	String purge(String table, String settledBefore) {
		return "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table + " WHERE " + settledBefore
				+ " ORDER BY started_at LIMIT ?)";
	}

	/** A timestamp column, given by position, as an instant. */
	Instant timestamp(ResultSet row, int column) throws SQLException {
		OffsetDateTime time = row.getObject(column, OffsetDateTime.class);
		return (time != null) ? time.toInstant() : null;
	}

}
