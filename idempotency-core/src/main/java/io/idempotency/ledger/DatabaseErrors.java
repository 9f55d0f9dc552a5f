package io.idempotency.ledger;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * What a database's own error codes say of a failure, where a driver's SQL state alone does not tell it.
 * Lock conflicts: MariaDB and MySQL report a lock wait timeout (error 1205) with SQL state {@code HY000},
 * which Spring's default translation leaves uncategorised; a lock wait that timed out means the holder is still
 * at work, a deadlock that the database chose this transaction to roll back. Refused data: a value the
 * database will never store, however often it is written.
 */
public final class DatabaseErrors {

	/** MariaDB and MySQL: lock wait timeout (1205), NOWAIT lock not available (3572); H2: lock timeout (50200). */
	private static final Set<Integer> LOCK_WAIT_TIMEOUT_CODES = Set.of(1205, 3572, 50200);

	/** PostgreSQL: lock not available (a lock_timeout or NOWAIT). */
	private static final String LOCK_NOT_AVAILABLE = "55P03";

	/** MariaDB and MySQL: deadlock (1213); H2: deadlock (40001 as a code). */
	private static final Set<Integer> DEADLOCK_CODES = Set.of(1213, 40001);

	/** PostgreSQL: deadlock detected. */
	private static final String DEADLOCK_DETECTED = "40P01";

	/**
	 * A serialization failure (PostgreSQL, YugabyteDB, CockroachDB and the SQL standard): the transaction was
	 * rolled back whole because it conflicted with a concurrent one, and may be run again. MySQL's, MariaDB's and
	 * H2's deadlocks carry the same SQL state with their own codes, and are deadlocks.
	 */
	private static final String SERIALIZATION_FAILURE = "40001";

	/**
	 * PostgreSQL: a prepared statement the server does not have ({@code 26000}), one it already has under that name
	 * ({@code 42P05}), or a bind that does not fit the statement of that name ({@code 08P01}).
	 */
	private static final Set<String> PREPARED_STATEMENT_STATES = Set.of("26000", "42P05", "08P01");

	/** How PostgreSQL names one of pgJDBC's server-side prepared statements in its errors. */
	private static final String DRIVERS_PREPARED_STATEMENT = "prepared statement \"S_";

	/** TiDB: write conflict (9007), reported with SQL state {@code HY000}. */
	private static final Set<Integer> WRITE_CONFLICT_CODES = Set.of(9007);

	/** Client classes that refuse a statement larger than the server's {@code max_allowed_packet}. */
	private static final Set<String> PACKET_TOO_LARGE = Set.of("org.mariadb.jdbc.export.MaxAllowedPacketException",
			"com.mysql.cj.jdbc.exceptions.PacketTooBigException");

	/** MariaDB and MySQL: the server's "packet bigger than max_allowed_packet". */
	private static final int PACKET_TOO_LARGE_CODE = 1153;

	private DatabaseErrors() {
	}

	/**
	 * Whether the database refused the data itself, so that writing it again can never succeed: a statement
	 * over MariaDB's or MySQL's {@code max_allowed_packet} (error 1153, or the driver's own check), a data
	 * exception (SQL state class 22) or a program limit (class 54, PostgreSQL's for a value too large). A lost
	 * connection or an unavailable database is not.
	 */
	public static boolean isRefusedData(Throwable failure) {
		for (Throwable cause : causeChain(failure)) {
			if (PACKET_TOO_LARGE.contains(cause.getClass().getName())) {
				return true;
			}
			if (cause instanceof SQLException sql) {
				String state = (sql.getSQLState() != null) ? sql.getSQLState() : "";
				if (sql.getErrorCode() == PACKET_TOO_LARGE_CODE || state.startsWith("22") || state.startsWith("54")) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * Whether the failure, or one of its causes, is a serialization failure: the database rolled the whole
	 * transaction back because of a concurrent one, and asks the client to run it again (SQL state {@code 40001}
	 * other than a deadlock's, TiDB's write conflict). Distributed SQL engines raise it as a normal outcome of
	 * concurrency; PostgreSQL does above READ COMMITTED.
	 */
	public static boolean isSerializationFailure(Throwable failure) {
		for (Throwable cause : causeChain(failure)) {
			if (cause instanceof SQLException sql && isSerializationFailure(sql)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isSerializationFailure(SQLException ex) {
		return (SERIALIZATION_FAILURE.equals(ex.getSQLState()) && !isDeadlock(ex))
				|| WRITE_CONFLICT_CODES.contains(ex.getErrorCode());
	}

	/** Whether the failure, or one of its causes, is a lock wait that timed out: the lock's holder still runs. */
	public static boolean isLockWaitTimeout(Throwable failure) {
		for (Throwable cause : causeChain(failure)) {
			if (cause instanceof SQLException sql && isLockWaitTimeout(sql)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isLockWaitTimeout(SQLException ex) {
		return LOCK_WAIT_TIMEOUT_CODES.contains(ex.getErrorCode()) || LOCK_NOT_AVAILABLE.equals(ex.getSQLState());
	}

	/**
	 * Whether the failure, or one of its causes, is a deadlock: the database rolled this transaction back to let
	 * another one through (on Galera, also a transaction whose certification failed at commit).
	 */
	static boolean isDeadlock(Throwable failure) {
		for (Throwable cause : causeChain(failure)) {
			if (cause instanceof SQLException sql && isDeadlock(sql)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isDeadlock(SQLException ex) {
		return DEADLOCK_CODES.contains(ex.getErrorCode()) || DEADLOCK_DETECTED.equals(ex.getSQLState());
	}

	/**
	 * Whether the server answered that pgJDBC's server-side prepared statement (named {@code S_1}, {@code S_2}, ...)
	 * is not the one the driver prepared on this connection: it does not exist, already exists, or takes other
	 * parameters. The server connection is not the one the driver prepared it on: a pooler in transaction or statement
	 * mode that does not keep prepared statements (PgBouncer 1.18, for one) hands each transaction to whichever
	 * server connection is free.
	 */
	static boolean isPreparedStatementOfAnotherSession(SQLException ex) {
		return PREPARED_STATEMENT_STATES.contains(ex.getSQLState()) && ex.getMessage() != null
				&& ex.getMessage().contains(DRIVERS_PREPARED_STATEMENT);
	}

	/**
	 * The ledger's translation of SQL errors: lock conflicts by their codes first ({@link CannotAcquireLockException}
	 * for a lock wait that timed out, {@link PessimisticLockingFailureException} for a deadlock or a serialization
	 * failure), then a server-side prepared statement of another session
	 * ({@link InvalidDataAccessResourceUsageException} that names the setting to change), everything else as the
	 * fallback translates it, or, where it cannot, as an {@link UncategorizedSQLException}: never {@code null}.
	 */
	static SQLExceptionTranslator translator(SQLExceptionTranslator fallback) {
		return (task, sql, ex) -> {
			for (Throwable cause : causeChain(ex)) {
				if (cause instanceof SQLException found && isPreparedStatementOfAnotherSession(found)) {
					return new InvalidDataAccessResourceUsageException(task + "; the server connection does not hold"
							+ " the statement the driver prepared on it [" + found.getMessage() + "]: a pooler in"
							+ " transaction or statement mode (PgBouncer) is in front of PostgreSQL and passes on no"
							+ " prepared statements. Set prepareThreshold=0 on the JDBC URL (pgJDBC then prepares no"
							+ " named statement on the server), or let the pooler keep prepared statements", ex);
				}
			}
			for (Throwable cause : causeChain(ex)) {
				if (cause instanceof SQLException found) {
					if (isLockWaitTimeout(found)) {
						return new CannotAcquireLockException(task + "; lock wait timeout [" + found.getMessage() + "]", ex);
					}
					if (isDeadlock(found)) {
						return new PessimisticLockingFailureException(task + "; deadlock [" + found.getMessage() + "]", ex);
					}
					if (isSerializationFailure(found)) {
						return new PessimisticLockingFailureException(
								task + "; serialization failure [" + found.getMessage() + "]", ex);
					}
				}
			}
			DataAccessException translated = fallback.translate(task, sql, ex);
			return (translated != null) ? translated : new UncategorizedSQLException(task, sql, ex);
		};
	}

	/**
	 * A failure and its causes, outermost first, each once: a chain that loops (A caused by B caused by A, which
	 * {@code initCause} allows) ends where it would repeat.
	 */
	public static List<Throwable> causeChain(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			chain.add(cause);
		}
		return chain;
	}

}
