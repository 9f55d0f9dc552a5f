package io.idempotency.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
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
 */
public final class FaultyDataSource implements DataSource {

	/** Where, relative to the step, the connection is lost. */
	public enum When {

		/** Before the step reaches the server: it does not happen. */
		BEFORE,

		/** After the step took effect on the server: only its answer is lost. */
		AFTER

	}

	/** The SQL state of a lost connection (08006, connection failure). */
	public static final String CONNECTION_FAILURE = "08006";

	private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate",
			"executeBatch", "executeLargeBatch");

	private final DataSource target;

	private final AtomicInteger steps = new AtomicInteger();

	private final List<String> trace = new CopyOnWriteArrayList<>();

	private volatile int failAt = -1;

	private volatile When when = When.BEFORE;

	private volatile boolean away;

	public FaultyDataSource(DataSource target) {
		this.target = target;
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
		return proxy(Connection.class, connection, (method, args) -> {
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
				String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text : null;
				return faulty(statement, sql, connection, dead);
			}
			return result;
		});
	}

	private Object faulty(Statement statement, String preparedSql, Connection connection, boolean[] dead) {
		Class<?>[] types = interfacesOf(statement);
		return Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(), types, handler(statement, (method, args) -> {
			if (dead[0] && !method.getName().equals("close")) {
				throw new SQLTransientConnectionException("Connection lost earlier (injected fault)", CONNECTION_FAILURE);
			}
			if (EXECUTIONS.contains(method.getName())) {
				String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text : preparedSql;
				return failing(connection, dead, sql, () -> method.invoke(statement, args));
			}
			return method.invoke(statement, args);
		}));
	}

	private Object failing(Connection connection, boolean[] dead, String what, Call step) throws Throwable {
		When fault = step(what, null);
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

	private static Class<?>[] interfacesOf(Statement statement) {
		if (statement instanceof java.sql.CallableStatement) {
			return new Class<?>[] { java.sql.CallableStatement.class };
		}
		if (statement instanceof java.sql.PreparedStatement) {
			return new Class<?>[] { java.sql.PreparedStatement.class };
		}
		return new Class<?>[] { Statement.class };
	}

	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, T target, Invocation invocation) {
		return (T) Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(), new Class<?>[] { type },
				handler(target, invocation));
	}

	private static InvocationHandler handler(Object target, Invocation invocation) {
		return (proxy, method, args) -> {
			if (method.getName().equals("unwrap") && args != null && args[0] instanceof Class<?> type
					&& type.isInstance(target)) {
				return target;
			}
			try {
				return invocation.invoke(method, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		};
	}

	@Override
	public java.io.PrintWriter getLogWriter() throws SQLException {
		return this.target.getLogWriter();
	}

	@Override
	public void setLogWriter(java.io.PrintWriter out) throws SQLException {
		this.target.setLogWriter(out);
	}

	@Override
	public void setLoginTimeout(int seconds) throws SQLException {
		this.target.setLoginTimeout(seconds);
	}

	@Override
	public int getLoginTimeout() throws SQLException {
		return this.target.getLoginTimeout();
	}

	@Override
	public java.util.logging.Logger getParentLogger() throws java.sql.SQLFeatureNotSupportedException {
		return this.target.getParentLogger();
	}

	@Override
	public <T> T unwrap(Class<T> type) throws SQLException {
		return type.isInstance(this.target) ? type.cast(this.target) : this.target.unwrap(type);
	}

	@Override
	public boolean isWrapperFor(Class<?> type) throws SQLException {
		return type.isInstance(this.target) || this.target.isWrapperFor(type);
	}

	@FunctionalInterface
	private interface Invocation {

		Object invoke(Method method, Object[] args) throws Throwable;

	}

	@FunctionalInterface
	private interface Call {

		Object invoke() throws Throwable;

	}

}
