package io.idempotency.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

/**
 * A {@link DataSource} over a real one that loses its connection to the database on purpose: at the
 * N-th step (taking a connection, executing a statement, committing), or at every step while the
 * database is "away".
 *
 * <p>A fault is what a real connection loss does. {@link When#BEFORE}: the step never reaches the server.
 * {@link When#AFTER}: the step takes effect on the server (a statement runs, a commit commits) and its
 * answer is lost. Either way the connection is dead from then on: work it had not committed is rolled back
 * on the server, as a server does when its client goes away, and every later use of it fails, as a
 * driver's does. Pooled connections underneath stay healthy, so the next connection taken works.
 *
 * <p>It also makes statements lose lock conflicts, as a database does to a transaction it rolls back and the
 * client may run again: deadlocks and serialization failures. The connection stays usable then.
 */
public final class FaultyDataSource extends WrappingDataSource {

	/** Where, relative to the step, the connection is lost. */
	public enum When {

		/** Before the step reaches the server: it does not happen. */
		BEFORE,

		/** After the step took effect on the server: only its answer is lost. */
		AFTER

	}

	/** The SQL state of a lost connection (08006, connection failure). */
	public static final String CONNECTION_FAILURE = "08006";

	private final AtomicInteger steps = new AtomicInteger();

	private final List<String> trace = new CopyOnWriteArrayList<>();

	private volatile int failAt = -1;

	private volatile When when = When.BEFORE;

	private volatile boolean away;

	private volatile String deadlockOn;

	private final AtomicInteger deadlocksLeft = new AtomicInteger();

	private volatile int serializationFailureAt = -1;

	private volatile boolean serializationFailed;

	private volatile String serializationFailureOn;

	private final AtomicInteger serializationFailuresLeft = new AtomicInteger();

	public FaultyDataSource(DataSource target) {
		super(target);
	}

	/** Loses the connection at the given step (1 is the first step after this call) and counts anew. */
	public void failAt(int step, When when) {
		if (step < 1) {
			throw new IllegalArgumentException("Steps count from 1, not " + step);
		}
		reset();
		this.when = when;
		this.failAt = step;
	}

	/** No more faults; counts anew. */
	public void heal() {
		reset();
		this.away = false;
		this.deadlocksLeft.set(0);
		this.serializationFailuresLeft.set(0);
	}

	/**
	 * The given step (1 is the first step after this call), if it is a statement or a commit, fails with a
	 * serialization failure, as PostgreSQL, YugabyteDB and CockroachDB report one (SQL state 40001, code 0): it
	 * does not reach the server, the transaction it ran in is rolled back (a commit rolls back instead), and the
	 * connection stays usable. Counts anew.
	 */
	public void serializationFailureAt(int step) {
		if (step < 1) {
			throw new IllegalArgumentException("Steps count from 1, not " + step);
		}
		reset();
		this.serializationFailureAt = step;
	}

	/** Whether the step given to {@link #serializationFailureAt} failed since. */
	public boolean serializationFailed() {
		return this.serializationFailed;
	}

	/**
	 * As {@link #serializationFailureAt}, for the next statements (or commits, with the fragment "commit")
	 * whose text holds the fragment (ignoring case), that many in a row.
	 */
	public void serializationFailure(String sqlFragment, int times) {
		this.serializationFailureOn = sqlFragment.toLowerCase(Locale.ROOT);
		this.serializationFailuresLeft.set(times);
	}

	/**
	 * The next statement whose text holds the fragment (ignoring case) loses a deadlock: it fails before it
	 * reaches the server with MySQL's deadlock error (SQL state 40001, code 1213), the transaction it ran in is
	 * rolled back, and the connection stays usable, as a deadlock victim's does.
	 */
	public void deadlockOnce(String sqlFragment) {
		deadlock(sqlFragment, 1);
	}

	/** As {@link #deadlockOnce}, for that many statements in a row whose text holds the fragment. */
	public void deadlock(String sqlFragment, int times) {
		this.deadlockOn = sqlFragment.toLowerCase(Locale.ROOT);
		this.deadlocksLeft.set(times);
	}

	/** Every step fails, before it reaches the server, until {@link #comeBack()}. */
	public void goAway() {
		this.away = true;
	}

	/** Ends {@link #goAway()}. */
	public void comeBack() {
		this.away = false;
	}

	/** Steps since the last {@link #failAt}, {@link #heal()}. */
	public int steps() {
		return this.steps.get();
	}

	/** What each step was (the statement's text, "commit", "connection"), in order. */
	public List<String> trace() {
		return List.copyOf(this.trace);
	}

	private void reset() {
		this.failAt = -1;
		this.serializationFailureAt = -1;
		this.serializationFailed = false;
		this.steps.set(0);
		this.trace.clear();
	}

	@Override
	public Connection getConnection() throws SQLException {
		step("connection", When.BEFORE);
		return faulty(this.target.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		step("connection", When.BEFORE);
		return faulty(this.target.getConnection(username, password));
	}

	/**
	 * Counts a step and says whether it is the one that fails, and when; {@code only} limits a step that can
	 * fail one way alone (a connection that is never handed out has no answer to lose).
	 */
	private When step(String what, When only) throws SQLException {
		if (this.away) {
			throw lost("the database is away (" + what + ")");
		}
		int step = this.steps.incrementAndGet();
		this.trace.add(what);
		if (step != this.failAt) {
			return null;
		}
		if (only == When.BEFORE) {
			throw lost("step " + step + " (" + what + "), before it reached the database");
		}
		return this.when;
	}

	private static SQLTransientConnectionException lost(String where) {
		return new SQLTransientConnectionException("Injected fault: connection lost at " + where, CONNECTION_FAILURE);
	}

	private Connection faulty(Connection connection) {
		boolean[] dead = { false };
		return proxyOf(Connection.class, connection, (method, args) -> {
			String name = method.getName();
			if (name.equals("close") || name.equals("isClosed")) {
				return method.invoke(connection, args);
			}
			if (name.equals("isValid")) {
				return !dead[0] && (Boolean) method.invoke(connection, args);
			}
			if (dead[0]) {
				throw new SQLTransientConnectionException("Connection lost earlier (injected fault)", CONNECTION_FAILURE);
			}
			if (name.equals("commit")) {
				return failing(connection, dead, "commit", () -> method.invoke(connection, args));
			}
			Object result = method.invoke(connection, args);
			if (result instanceof Statement statement) {
				return faulty(statement, sqlOf(args, null), connection, dead);
			}
			return result;
		});
	}

	private Statement faulty(Statement statement, String preparedSql, Connection connection, boolean[] dead) {
		return proxyOf(statement, (method, args) -> {
			if (dead[0] && !method.getName().equals("close")) {
				throw new SQLTransientConnectionException("Connection lost earlier (injected fault)", CONNECTION_FAILURE);
			}
			if (EXECUTIONS.contains(method.getName())) {
				return failing(connection, dead, sqlOf(args, preparedSql), () -> method.invoke(statement, args));
			}
			return method.invoke(statement, args);
		});
	}

	private Object failing(Connection connection, boolean[] dead, String what, Call step) throws Throwable {
		String fragment = this.deadlockOn;
		if (fragment != null && what != null && what.toLowerCase(Locale.ROOT).contains(fragment)
				&& this.deadlocksLeft.getAndUpdate((left) -> Math.max(left - 1, 0)) > 0) {
			if (!connection.getAutoCommit()) {
				connection.rollback();
			}
			throw new SQLTransactionRollbackException(
					"Injected fault: deadlock found when trying to get lock; try restarting transaction", "40001", 1213);
		}
		String onText = this.serializationFailureOn;
		if (onText != null && what != null && what.toLowerCase(Locale.ROOT).contains(onText)
				&& this.serializationFailuresLeft.getAndUpdate((left) -> Math.max(left - 1, 0)) > 0) {
			throw serializationFailure(connection, what);
		}
		When fault = step(what, null);
		if (this.steps.get() == this.serializationFailureAt) {
			this.serializationFailed = true;
			throw serializationFailure(connection, what);
		}
		if (fault == null) {
			return step.invoke();
		}
		if (fault == When.AFTER) {
			step.invoke();
		}
		dead[0] = true;
		// The server rolls back what a lost client had not committed.
		if (!connection.getAutoCommit()) {
			connection.rollback();
		}
		throw lost("step " + this.steps.get() + " (" + what + "), "
				+ ((fault == When.BEFORE) ? "before it reached the database" : "after it took effect"));
	}

	/** The transaction is rolled back, as the server does to a serialization failure's; the connection lives. */
	private static SQLTransactionRollbackException serializationFailure(Connection connection, String what)
			throws SQLException {
		if (!connection.getAutoCommit()) {
			connection.rollback();
		}
		return new SQLTransactionRollbackException("Injected fault: could not serialize access due to concurrent"
				+ " update (" + what + ")", "40001", 0);
	}

	@FunctionalInterface
	private interface Call {

		Object invoke() throws Throwable;

	}

}
