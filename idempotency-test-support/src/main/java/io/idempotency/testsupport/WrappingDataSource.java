package io.idempotency.testsupport;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Set;
import java.util.logging.Logger;

import javax.sql.DataSource;

/**
 * A {@link DataSource} over a real one whose connections and statements are proxies that see every call:
 * the common part of the test wrappers that count round trips and inject faults.
 */
abstract class WrappingDataSource implements DataSource {

	/** The statement methods that send something to the server. */
	static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate",
			"executeBatch", "executeLargeBatch");

	final DataSource target;

	WrappingDataSource(DataSource target) {
		this.target = target;
	}

	/** A proxy of the statement, of its most specific JDBC interface, that hands every call to the invocation. */
	static Statement proxyOf(Statement statement, Invocation invocation) {
		return (Statement) Proxy.newProxyInstance(WrappingDataSource.class.getClassLoader(), interfacesOf(statement),
				handler(statement, invocation));
	}

	private static Class<?>[] interfacesOf(Statement statement) {
		if (statement instanceof CallableStatement) {
			return new Class<?>[] { CallableStatement.class };
		}
		if (statement instanceof PreparedStatement) {
			return new Class<?>[] { PreparedStatement.class };
		}
		return new Class<?>[] { Statement.class };
	}

	/** A proxy of the given interface that hands every call to the invocation. */
	@SuppressWarnings("unchecked")
	static <T> T proxyOf(Class<T> type, T target, Invocation invocation) {
		return (T) Proxy.newProxyInstance(WrappingDataSource.class.getClassLoader(), new Class<?>[] { type },
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

	/** The SQL text a call passes as its first argument, or the given one. */
	static String sqlOf(Object[] args, String otherwise) {
		return (args != null && args.length > 0 && args[0] instanceof String text) ? text : otherwise;
	}

	@Override
	public PrintWriter getLogWriter() throws SQLException {
		return this.target.getLogWriter();
	}

	@Override
	public void setLogWriter(PrintWriter out) throws SQLException {
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
	public Logger getParentLogger() throws SQLFeatureNotSupportedException {
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

	/** One call on a proxied connection or statement. */
	@FunctionalInterface
	interface Invocation {

		Object invoke(Method method, Object[] args) throws Throwable;

	}

}
