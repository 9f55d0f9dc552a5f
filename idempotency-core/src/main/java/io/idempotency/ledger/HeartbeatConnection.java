package io.idempotency.ledger;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The one connection the heartbeat keeps for itself, taken from the ledger's pool on the first beat and
 * held until the ledger closes: the long calls the heartbeat protects may hold every other connection of
 * the pool, and a heartbeat that waited for one of them would let a running call be reconciled. A
 * connection that fails is given back, and the next beat takes a fresh one. Each beat commits on its own
 * (auto-commit on; the pool's setting is restored when the connection is given back).
 */
final class HeartbeatConnection implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(HeartbeatConnection.class);

	private final DataSource dataSource;

	private final SQLExceptionTranslator translator;

	private Connection connection;

	private boolean autoCommitAsTaken;

	HeartbeatConnection(DataSource dataSource, SQLExceptionTranslator translator) {
		this.dataSource = dataSource;
		this.translator = translator;
	}

	/** Runs one update with string parameters on the held connection; how many rows it changed. */
	synchronized int update(String sql, List<String> parameters) {
		try {
			Connection held = held();
			try (PreparedStatement statement = held.prepareStatement(sql)) {
				for (int i = 0; i < parameters.size(); i++) {
					statement.setString(i + 1, parameters.get(i));
				}
				return statement.executeUpdate();
			}
		}
		catch (SQLException ex) {
			release();
			throw this.translator.translate("heartbeat", sql, ex);
		}
	}

	/** Takes the connection now, if not yet held: the heartbeat's start. */
	synchronized void reserve() {
		try {
			held();
		}
		catch (SQLException ex) {
			release();
			throw this.translator.translate("heartbeat connection", null, ex);
		}
	}

	synchronized boolean isHeld() {
		return this.connection != null;
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
