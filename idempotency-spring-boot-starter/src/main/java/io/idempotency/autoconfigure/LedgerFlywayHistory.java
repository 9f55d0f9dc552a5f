package io.idempotency.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.BaseCallback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A callback of the application's Flyway, where the ledger's migrations run with a history of their own: an
 * application that ran them in its own history (with {@code outOfOrder}, as recommended before) has their rows
 * in its history table, which its Flyway, no longer given the ledger's location, would find applied but not
 * resolved, and refuse to start. Before it validates, the ledger's rows (script
 * {@code V1_0_0_0_<n>__idempotency_ledger...}) leave the application's history; the ledger's own history then
 * adopts the table at the version it is at. The application's own rows are left as they are.
 */
final class LedgerFlywayHistory extends BaseCallback {

	private static final Logger logger = LoggerFactory.getLogger(LedgerFlywayHistory.class);

	/**
	 * The scripts of the ledger's migrations, as Flyway records them: each of them, by its exact name, so that no
	 * script of the application's is taken for one (a new migration of the ledger's is added here too).
	 */
	static final String LEDGER_SCRIPTS = "'V1_0_0_0_1__idempotency_ledger.sql',"
			+ " 'V1_0_0_0_2__idempotency_ledger_settlements.sql', 'V1_0_0_0_3__idempotency_ledger_status_check.sql',"
			+ " 'V1_0_0_0_4__idempotency_ledger_approvals.sql'";

	@Override
	public boolean supports(Event event, Context context) {
		return event == Event.BEFORE_VALIDATE || event == Event.BEFORE_MIGRATE;
	}

	@Override
	public boolean canHandleInTransaction(Event event, Context context) {
		return true;
	}

	@Override
	public void handle(Event event, Context context) {
		Configuration configuration = context.getConfiguration();
		String schema = (configuration.getDefaultSchema() != null) ? configuration.getDefaultSchema()
				: (configuration.getSchemas().length > 0) ? configuration.getSchemas()[0] : null;
		try {
			Connection connection = context.getConnection();
			String history = historyTable(connection, schema, configuration.getTable());
			if (history == null) {
				return;
			}
			// Flyway's history tables quote their lower-case column names.
			String script = connection.getMetaData().getIdentifierQuoteString().strip() + "script"
					+ connection.getMetaData().getIdentifierQuoteString().strip();
			try (Statement statement = connection.createStatement()) {
				int moved = statement
					.executeUpdate("DELETE FROM " + history + " WHERE " + script + " IN (" + LEDGER_SCRIPTS + ")");
				if (moved > 0) {
					logger.atInfo()
						.log("Removed the idempotency ledger's {} migrations from {}: they are recorded in the ledger's own"
								+ " history table from now on", moved, history);
				}
			}
		}
		catch (SQLException ex) {
			throw new FlywayException("Could not move the idempotency ledger's migrations out of the history table "
					+ configuration.getTable() + ": " + ex.getMessage(), ex);
		}
	}

	/** The history table, quoted as the database spells it, or {@code null} where it does not exist yet. */
	private static String historyTable(Connection connection, String schema, String table) throws SQLException {
		DatabaseMetaData metaData = connection.getMetaData();
		boolean catalogsAreSchemas = !metaData.supportsSchemasInTableDefinitions();
		String quote = metaData.getIdentifierQuoteString().strip();
		for (String name : new String[] { table, table.toLowerCase(Locale.ROOT), table.toUpperCase(Locale.ROOT) }) {
			String catalog = catalogsAreSchemas ? ((schema != null) ? schema : connection.getCatalog()) : null;
			String inSchema = catalogsAreSchemas ? null : ((schema != null) ? schema : connection.getSchema());
			try (ResultSet tables = metaData.getTables(catalog, inSchema, name, new String[] { "TABLE" })) {
				if (tables.next()) {
					String qualifier = (schema != null) ? quote + schema + quote + "." : "";
					return qualifier + quote + tables.getString("TABLE_NAME") + quote;
				}
			}
		}
		return null;
	}

	@Override
	public String getCallbackName() {
		return "idempotencyLedgerHistory";
	}

}
