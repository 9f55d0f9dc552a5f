package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The one connection the heartbeat keeps for itself, taken from the ledger's pool on the first beat and
 * held until the ledger closes: the long calls the heartbeat protects may hold every other connection of
 * the pool, and a heartbeat that waited for one of them would let a running call be reconciled. A
 * connection that fails (cut by the server or a proxy) is given back and a fresh one taken at once, once.
 * Each beat commits on its own (auto-commit on; the pool's setting is restored when the connection is given
 * back). Once closed, an update in flight takes no connection again; the next beat starts anew.
 */
final class HeartbeatConnection implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(HeartbeatConnection.class);

	private final DataSource dataSource;

	private final SQLExceptionTranslator translator;

	private Connection connection;

	private boolean autoCommitAsTaken;

	private boolean closed;

	HeartbeatConnection(DataSource dataSource, SQLExceptionTranslator translator) {
		this.dataSource = dataSource;
		this.translator = translator;
	}

	/**
	 * Runs one update with row ids as its parameters on the held connection; how many rows it changed. A held
	 * connection that fails is replaced once, at once; {@code 0} once closed.
	 */
	synchronized int update(String sql, List<Long> parameters) {
		if (this.closed) {
			return 0;
		}
		boolean fresh = (this.connection == null);
		try {
			return execute(sql, parameters);
		}
		catch (SQLException ex) {
			release();
			if (fresh) {
				throw this.translator.translate("heartbeat", sql, ex);
			}
		}
		try {
			return execute(sql, parameters);
		}
		catch (SQLException ex) {
			release();
			throw this.translator.translate("heartbeat", sql, ex);
		}
	}

	private int execute(String sql, List<Long> parameters) throws SQLException {
		try (PreparedStatement statement = held().prepareStatement(sql)) {
			for (int i = 0; i < parameters.size(); i++) {
				statement.setLong(i + 1, parameters.get(i));
			}
			return statement.executeUpdate();
		}
	}

	/** Takes the connection now, if not yet held: the start of every beat. */
	synchronized void reserve() {
		// A heartbeat that starts again after the ledger closed (a context stopped and started) beats again.
		this.closed = false;
		try {
			held();
		}
		catch (SQLException ex) {
			release();
			throw this.translator.translate("heartbeat connection", null, ex);
		}
	}

	private Connection held() throws SQLException {
		if (this.connection == null) {
			Connection taken = this.dataSource.getConnection();
			this.connection = taken;
			this.autoCommitAsTaken = taken.getAutoCommit();
			if (!this.autoCommitAsTaken) {
				taken.setAutoCommit(true);
			}
		}
		return this.connection;
	}

	/** Gives the connection back to the pool. */
	@Override
	public synchronized void close() {
		this.closed = true;
		release();
	}

	private void release() {
		Connection held = this.connection;
		this.connection = null;
		if (held == null) {
			return;
		}
		try {
			if (!this.autoCommitAsTaken && !held.isClosed()) {
				held.setAutoCommit(false);
			}
		}
		catch (SQLException ex) {
			logger.debug("Could not restore the heartbeat connection's auto-commit setting", ex);
		}
		JdbcUtils.closeConnection(held);
	}

}
