package io.idempotency.testsupport;

import java.lang.reflect.InvocationTargetException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts what reaches the server: every statement executed (a batch counts
 * once), every commit and rollback, every question about the isolation level, and every request for a
 * statement's parameter metadata (which makes some drivers prepare the statement on the server). These are
 * the round trips a caller pays for; opening and closing pooled connections are not counted.
 *
 * <p>It also keeps the text of the statements executed, so a test can say which ones ran, and counts the
 * executions the server answered with an error.
 */
public final class CountingDataSource extends WrappingDataSource {

	private final AtomicLong roundTrips = new AtomicLong();

	private final AtomicLong parameterMetadata = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	private final List<String> statements = new CopyOnWriteArrayList<>();

	public CountingDataSource(DataSource target) {
		super(target);
	}

	/** Round trips since the last {@link #reset()}. */
	public long roundTrips() {
		return this.roundTrips.get();
	}

	/** Requests for parameter metadata since the last {@link #reset()}. */
	public long parameterMetadataRequests() {
		return this.parameterMetadata.get();
	}

	/** Executions answered with an error (a {@link java.sql.SQLException}) since the last {@link #reset()}. */
	public long errors() {
		return this.errors.get();
	}

	/** The text of every statement executed since the last {@link #reset()}, in order. */
	public List<String> statements() {
		return List.copyOf(this.statements);
	}

	/** Starts counting anew. */
	public void reset() {
		this.roundTrips.set(0);
		this.parameterMetadata.set(0);
		this.errors.set(0);
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

	private Connection counting(Connection connection) {
		return proxyOf(Connection.class, connection, (method, args) -> {
			switch (method.getName()) {
				case "commit", "rollback", "getTransactionIsolation", "setTransactionIsolation" -> this.roundTrips.incrementAndGet();
				default -> {
				}
			}
			Object result = method.invoke(connection, args);
			if (result instanceof Statement statement) {
				return counting(statement, sqlOf(args, null));
			}
			return result;
		});
	}

	private Statement counting(Statement statement, String preparedSql) {
		return proxyOf(statement, (method, args) -> {
			String name = method.getName();
			if (EXECUTIONS.contains(name)) {
				this.roundTrips.incrementAndGet();
				this.statements.add(sqlOf(args, preparedSql));
				try {
					return method.invoke(statement, args);
				}
				catch (InvocationTargetException ex) {
					if (ex.getCause() instanceof SQLException) {
						this.errors.incrementAndGet();
					}
					throw ex;
				}
			}
			else if (name.equals("getParameterMetaData")) {
				this.roundTrips.incrementAndGet();
				this.parameterMetadata.incrementAndGet();
			}
			return method.invoke(statement, args);
		});
	}

}
