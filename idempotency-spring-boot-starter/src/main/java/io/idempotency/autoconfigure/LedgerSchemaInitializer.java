package io.idempotency.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import javax.sql.DataSource;

import io.idempotency.ledger.LedgerSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.datasource.init.DatabasePopulatorUtils;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.util.ClassUtils;

/**
 * Creates the ledger table at start-up when the configured mode asks for it (by default only on an
 * embedded database) and the table does not exist yet. It runs after Flyway, Liquibase and the application's
 * own SQL scripts, so that a table they create (from the ledger's migrations, or a copy of its script) is
 * found and left. Beans that use the database wait for it, as they wait for Flyway and Liquibase. A table that
 * exists without the columns of a later migration of the ledger's (in any mode) is left as it is, and a warning
 * names the migration to apply. With {@code idempotency.jdbc.flyway}, the ledger's Flyway migrations make and
 * upgrade the table instead, with a Flyway of the library's own and a history table of its own, in the same place
 * of the start: after the application's Flyway or Liquibase.
 */
public class LedgerSchemaInitializer implements InitializingBean {

	private static final Logger logger = LoggerFactory.getLogger(LedgerSchemaInitializer.class);

	private final DataSource dataSource;

	private final IdempotencyProperties.Jdbc settings;

	private final ResourceLoader resourceLoader;

	public LedgerSchemaInitializer(DataSource dataSource, IdempotencyProperties.Jdbc settings,
			ResourceLoader resourceLoader) {
		this.dataSource = dataSource;
		this.settings = settings;
		this.resourceLoader = resourceLoader;
	}

	@Override
	public void afterPropertiesSet() {
		if (this.settings.isFlyway()) {
			migrateWithFlyway();
			return;
		}
		DatabaseInitializationMode mode = this.settings.getInitializeSchema();
		if (mode == DatabaseInitializationMode.NEVER
				|| (mode == DatabaseInitializationMode.EMBEDDED && !EmbeddedDatabaseConnection.isEmbedded(this.dataSource))) {
			warnIfTheTableLacksTheColumnsOfLaterMigrations();
			return;
		}
		if (tableExists()) {
			warnIfTheTableLacksTheColumnsOfLaterMigrations();
			return;
		}
		String platform = (this.settings.getPlatform() != null) ? this.settings.getPlatform()
				: LedgerSchema.platformOf(this.dataSource);
		if (this.settings.getSchema() != null) {
			String location = this.settings.getSchema().replace("@@platform@@", platform);
			ResourceDatabasePopulator populator = new ResourceDatabasePopulator(this.resourceLoader.getResource(location));
			populator.setSqlScriptEncoding(StandardCharsets.UTF_8.name());
			DatabasePopulatorUtils.execute(populator, this.dataSource);
		}
		else {
			DatabasePopulatorUtils.execute(new ResourceDatabasePopulator(new org.springframework.core.io.ByteArrayResource(
					LedgerSchema.createScript(platform, this.settings.getTableName()).getBytes(StandardCharsets.UTF_8))),
					this.dataSource);
		}
		logger.atInfo()
			.addKeyValue("idempotency.table", this.settings.getTableName())
			.addKeyValue("idempotency.platform", platform)
			.log("Created the idempotency ledger table {} ({})", this.settings.getTableName(), platform);
	}

	/**
	 * The ledger's migrations, by a Flyway of the library's own with a history table of its own; a table found
	 * without that history is adopted at the version it is at.
	 */
	private void migrateWithFlyway() {
		if (!"tool_audit".equalsIgnoreCase(this.settings.getTableName())) {
			throw new IllegalStateException("idempotency.jdbc.flyway runs the ledger's migrations, which make the table"
					+ " tool_audit, but the table is configured as '" + this.settings.getTableName() + "' (idempotency.jdbc"
					+ ".table-name): turn idempotency.jdbc.flyway off and make the table with a migration of the"
					+ " application's own (LedgerSchema.createScript(platform, tableName))");
		}
		if (!ClassUtils.isPresent("org.flywaydb.core.Flyway", getClass().getClassLoader())) {
			throw new IllegalStateException("idempotency.jdbc.flyway runs the ledger's migrations with Flyway, which is"
					+ " not on the class path: add org.flywaydb:flyway-core (and the module of the database), or turn"
					+ " idempotency.jdbc.flyway off");
		}
		String platform = (this.settings.getPlatform() != null) ? this.settings.getPlatform()
				: LedgerSchema.platformOf(this.dataSource);
		LedgerFlywayMigrations.migrate(this.dataSource, platform, this.settings.getFlywayTable(), tableVersion());
	}

	/**
	 * The version of the ledger's migrations that a table found without their history is at, read from its
	 * columns: {@code 1.0.0.0.4} with the approval columns, {@code 1.0.0.0.2} with the settlement columns only,
	 * else {@code 1.0.0.0.1}; {@code null} where there is no table.
	 */
	private String tableVersion() {
		Boolean settled = hasColumn(LedgerSchema.SETTLEMENT_COLUMNS.get(0));
		if (settled == null) {
			return null;
		}
		if (!settled) {
			return LedgerFlywayMigrations.FIRST;
		}
		return hasColumn(LedgerSchema.APPROVAL_COLUMNS.get(0)) ? LedgerFlywayMigrations.LATEST
				: LedgerFlywayMigrations.SETTLEMENTS;
	}

	/**
	 * A table made before the ledger's migration {@code 1.0.0.0.2} serves calls as before, but settlement by
	 * hand needs that migration's columns; one made before {@code 1.0.0.0.4} serves calls of tools that need no
	 * approval, but a tool that needs a person's approval needs that migration's columns and statuses: the start
	 * goes on, and says what to run, in order. Nothing is said where the table is not found (it may be made
	 * later, or be in a schema the connection does not show).
	 */
	private void warnIfTheTableLacksTheColumnsOfLaterMigrations() {
		boolean settled;
		boolean approvals;
		try {
			Boolean found = hasColumn(LedgerSchema.SETTLEMENT_COLUMNS.get(0));
			if (found == null) {
				return;
			}
			settled = found;
			approvals = Boolean.TRUE.equals(hasColumn(LedgerSchema.APPROVAL_COLUMNS.get(0)));
		}
		catch (RuntimeException ex) {
			logger.atDebug().setCause(ex).log("Could not read the columns of the idempotency ledger table");
			return;
		}
		String platform = (this.settings.getPlatform() != null) ? this.settings.getPlatform()
				: LedgerSchema.platformOf(this.dataSource);
		if (!settled) {
			warnOfMissingColumns(LedgerSchema.SETTLEMENT_COLUMNS, "1.0.0.0.2",
					"calls are served as before, but settling calls by hand (Settlements) fails until they exist",
					LedgerSchema.upgradeLocation(platform));
		}
		if (!approvals) {
			warnOfMissingColumns(LedgerSchema.APPROVAL_COLUMNS, "1.0.0.0.4",
					"calls of tools that need no approval are served as before, but no tool that needs a person's"
							+ " approval can claim a call until they exist",
					LedgerSchema.approvalsUpgradeLocation(platform));
		}
	}

	private void warnOfMissingColumns(List<String> columns, String migration, String consequence, String location) {
		logger.atWarn()
			.addKeyValue("idempotency.table", this.settings.getTableName())
			.log("The idempotency ledger table {} lacks the columns {} of the ledger's migration {}: {}. Apply {}{}",
					this.settings.getTableName(), columns, migration, consequence, location,
					" (with the table's name in place of tool_audit), or let Flyway or Liquibase apply the ledger's"
							+ " migrations");
	}

	/**
	 * The columns of these the table lacks: none where it has them all, or where it is not found (it may be made
	 * later, or be in a schema the connection does not show).
	 */
	List<String> missingColumns(List<String> columns) {
		List<String> missing = new ArrayList<>();
		for (String column : columns) {
			Boolean found = hasColumn(column);
			if (found == null) {
				return List.of();
			}
			if (!found) {
				missing.add(column);
			}
		}
		return missing;
	}

	/** The platform of the ledger's database, as the schema scripts and migrations name it. */
	String platform() {
		return (this.settings.getPlatform() != null) ? this.settings.getPlatform()
				: LedgerSchema.platformOf(this.dataSource);
	}

	/** The ledger table's name, as configured. */
	String tableName() {
		return this.settings.getTableName();
	}

	/**
	 * Whether the table has a column of this name; {@code null} where the table is not found.
	 */
	private Boolean hasColumn(String column) {
		String table = this.settings.getTableName();
		int dot = table.indexOf('.');
		String unqualified = (dot > 0) ? table.substring(dot + 1) : table;
		try {
			return JdbcUtils.extractDatabaseMetaData(this.dataSource, (DatabaseMetaData metaData) -> {
				Boolean found = null;
				for (String[] where : candidates(metaData, table)) {
					for (String candidateTable : spellings(unqualified)) {
						if (exists(metaData, where[0], where[1], candidateTable)) {
							for (String candidateColumn : spellings(column)) {
								try (ResultSet columns = metaData.getColumns(where[0], where[1], candidateTable,
										candidateColumn)) {
									if (columns.next()) {
										return true;
									}
								}
							}
							found = false;
						}
					}
				}
				return found;
			});
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not read the columns of the idempotency ledger table " + table, ex);
		}
	}

	/** The catalogs and schemas, each as the database may spell it, where the ledger's statements look for a table. */
	private static List<String[]> candidates(DatabaseMetaData metaData, String name) throws SQLException {
		int dot = name.indexOf('.');
		String qualifier = (dot > 0) ? name.substring(0, dot) : null;
		Connection connection = metaData.getConnection();
		// MariaDB and MySQL call a schema a catalog (a database), and have no schemas of their own.
		boolean catalogsAreSchemas = !metaData.supportsSchemasInTableDefinitions();
		String catalog = connection.getCatalog();
		String schema = catalogsAreSchemas ? null : connection.getSchema();
		if (qualifier != null) {
			if (catalogsAreSchemas) {
				catalog = qualifier;
			}
			else {
				schema = qualifier;
			}
		}
		List<String[]> candidates = new ArrayList<>();
		for (String candidateSchema : spellings(schema)) {
			for (String candidateCatalog : spellings(catalog)) {
				candidates.add(new String[] { candidateCatalog, candidateSchema });
			}
		}
		return candidates;
	}

	/**
	 * Whether the table exists where the ledger's statements will find it: in the schema named with it, else
	 * in the connection's own catalog and schema. A table of the same name elsewhere (another MariaDB
	 * database, another PostgreSQL schema) does not count.
	 */
	private boolean tableExists() {
		String name = this.settings.getTableName();
		int dot = name.indexOf('.');
		String table = (dot > 0) ? name.substring(dot + 1) : name;
		try {
			return JdbcUtils.extractDatabaseMetaData(this.dataSource, (DatabaseMetaData metaData) -> {
				for (String[] where : candidates(metaData, name)) {
					for (String candidateTable : spellings(table)) {
						if (exists(metaData, where[0], where[1], candidateTable)) {
							return true;
						}
					}
				}
				return false;
			});
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not tell whether the idempotency ledger table " + name + " exists", ex);
		}
	}

	/** A name as written, and as the database may have folded an unquoted one. */
	private static Set<String> spellings(String name) {
		Set<String> spellings = new LinkedHashSet<>();
		spellings.add(name);
		if (name != null) {
			spellings.add(name.toLowerCase(Locale.ROOT));
			spellings.add(name.toUpperCase(Locale.ROOT));
		}
		return spellings;
	}

	private static boolean exists(DatabaseMetaData metaData, String catalog, String schema, String table)
			throws SQLException {
		try (ResultSet tables = metaData.getTables(catalog, schema, table, new String[] { "TABLE" })) {
			return tables.next();
		}
	}

}
