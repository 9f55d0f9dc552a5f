package io.idempotency.autoconfigure;

import java.util.Arrays;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger's Flyway migrations, run by a Flyway of the library's own, with a history table of its own
 * ({@code idempotency.jdbc.flyway-table}), after the application's Flyway or Liquibase: the application's own
 * versions and the ledger's never meet in one sequence, so neither needs {@code outOfOrder}. A table that exists
 * without this history (made by the initializer, a schema script, or the ledger's migrations in the application's
 * history) is adopted: the history is baselined at the version the table is at, and only later migrations run.
 */
final class LedgerFlywayMigrations {

	private static final Logger logger = LoggerFactory.getLogger(LedgerFlywayMigrations.class);

	/** The version of a table that has the approval columns: the ledger's latest migration. */
	static final String LATEST = "1.0.0.0.4";

	/**
	 * The version of a table that has the settlement columns but not the approval columns (on H2, the migration
	 * that writes the status check as a CASE, {@code 1.0.0.0.3}, runs after it too: a table of that time may have
	 * the check as an IN list).
	 */
	static final String SETTLEMENTS = "1.0.0.0.2";

	/** The version of a table made before the settlement columns. */
	static final String FIRST = "1.0.0.0.1";

	private LedgerFlywayMigrations() {
	}

	/**
	 * Migrates the ledger's table on this data source.
	 * @param platform the folder of the ledger's migrations ({@code postgresql}, {@code mysql}, {@code mariadb},
	 * {@code h2})
	 * @param historyTable the ledger's own history table
	 * @param tableVersion the version the table is at where it exists without a history ({@link #LATEST},
	 * {@link #SETTLEMENTS} or {@link #FIRST}), or {@code null} where there is no table
	 */
	static void migrate(DataSource dataSource, String platform, String historyTable, String tableVersion) {
		Flyway flyway = Flyway.configure(LedgerFlywayMigrations.class.getClassLoader())
			.dataSource(dataSource)
			.locations("classpath:io/idempotency/ledger/migration/" + platform)
			.table(historyTable)
			.baselineOnMigrate(true)
			// Below the ledger's first migration where there is no table: every migration then runs.
			.baselineVersion((tableVersion != null) ? tableVersion : "1")
			.baselineDescription("idempotency ledger table found")
			.load();
		MigrateResult result = flyway.migrate();
		if (result.migrationsExecuted > 0) {
			logger.atInfo()
				.addKeyValue("idempotency.platform", platform)
				.log("Applied {} of the idempotency ledger's migrations ({}), recorded in {}", result.migrationsExecuted,
						Arrays.stream(flyway.info().applied()).map(MigrationInfo::getVersion).toList(), historyTable);
		}
	}


}
