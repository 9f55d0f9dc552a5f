package io.idempotency.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts what reaches the server: every statement executed (a batch counts
 * once), every commit and rollback, every question about the isolation level, and every request for a
 * statement's parameter metadata (which makes some drivers prepare the statement on the server). These are
 * the round trips a caller pays for; opening and closing pooled connections are not counted.
 *
 * <p>It also keeps the text of the statements executed, so a test can say which ones ran.
 */
public final class CountingDataSource implements DataSource {

	private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate",
			"executeBatch", "executeLargeBatch");

	private final AtomicLong roundTrips = new AtomicLong();

	private final AtomicLong parameterMetadata = new AtomicLong();

	private final List<String> statements = new CopyOnWriteArrayList<>();

	private final DataSource target;

	public CountingDataSource(DataSource target) {
		this.target = target;
	}

	/** Round trips since the last {@link #reset()}. */
	public long roundTrips() {
		return this.roundTrips.get();
	}

	/** Requests for parameter metadata since the last {@link #reset()}. */
	public long parameterMetadataRequests() {
		return this.parameterMetadata.get();
	}

	/** The text of every statement executed since the last {@link #reset()}, in order. */
	public List<String> statements() {
		return List.copyOf(this.statements);
	}

	/** Starts counting anew. */
	public void reset() {
		this.roundTrips.set(0);
		this.parameterMetadata.set(0);
		this.statements.clear();
	}

	@Override
	public Connection getConnection() throws SQLException {
		return counting(this.target.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return counting(this.target.getConnection(username, password));
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

	private Connection counting(Connection connection) {
		return proxy(Connection.class, connection, (method, args) -> {
			switch (method.getName()) {
				case "commit", "rollback", "getTransactionIsolation", "setTransactionIsolation" -> this.roundTrips.incrementAndGet();
				default -> {
				}
			}
			Object result = method.invoke(connection, args);
			if (result instanceof Statement statement) {
				String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text : null;
				return counting(statement, sql);
			}
			return result;
		});
	}

	private Object counting(Statement statement, String preparedSql) {
		Class<?>[] types = interfacesOf(statement);
		return Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), types, handler(statement, (method, args) -> {
			String name = method.getName();
			if (EXECUTIONS.contains(name)) {
				this.roundTrips.incrementAndGet();
				this.statements.add((args != null && args.length > 0 && args[0] instanceof String text) ? text : preparedSql);
			}
			else if (name.equals("getParameterMetaData")) {
				this.roundTrips.incrementAndGet();
				this.parameterMetadata.incrementAndGet();
			}
			return method.invoke(statement, args);
		}));
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
	private static <T> T proxy(Class<T> type, T target, Call call) {
		return (T) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] { type },
				handler(target, call));
	}

	private static InvocationHandler handler(Object target, Call call) {
		return (proxy, method, args) -> {
			if (method.getName().equals("unwrap") && args != null && args[0] instanceof Class<?> type
					&& type.isInstance(target)) {
				return target;
			}
			try {
				return call.invoke(method, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		};
	}

	@FunctionalInterface
	private interface Call {

		Object invoke(Method method, Object[] args) throws Throwable;

	}

}
