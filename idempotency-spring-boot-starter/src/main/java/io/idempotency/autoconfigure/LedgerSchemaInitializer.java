package io.idempotency.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

import javax.sql.DataSource;

import io.idempotency.ledger.LedgerSchema;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.datasource.init.DatabasePopulatorUtils;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Creates the ledger table at start-up when the configured mode asks for it (by default only on an
 * embedded database) and the table does not exist yet. It runs after Flyway, Liquibase and the application's
 * own SQL scripts, so that a table they create (from the ledger's migrations, or a copy of its script) is
 * found and left. Beans that use the database wait for it, as they wait for Flyway and Liquibase.
 */
public class LedgerSchemaInitializer implements InitializingBean {

	private static final Log logger = LogFactory.getLog(LedgerSchemaInitializer.class);

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
		DatabaseInitializationMode mode = this.settings.getInitializeSchema();
		if (mode == DatabaseInitializationMode.NEVER
				|| (mode == DatabaseInitializationMode.EMBEDDED && !EmbeddedDatabaseConnection.isEmbedded(this.dataSource))) {
			return;
		}
		if (tableExists()) {
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
		logger.info("Created the idempotency ledger table " + this.settings.getTableName() + " (" + platform + ")");
	}

	/**
	 * Whether the table exists where the ledger's statements will find it: in the schema named with it, else
	 * in the connection's own catalog and schema. A table of the same name elsewhere (another MariaDB
	 * database, another PostgreSQL schema) does not count.
	 */
	private boolean tableExists() {
		String name = this.settings.getTableName();
		int dot = name.indexOf('.');
		String qualifier = (dot > 0) ? name.substring(0, dot) : null;
		String table = (dot > 0) ? name.substring(dot + 1) : name;
		try {
			return JdbcUtils.extractDatabaseMetaData(this.dataSource, (DatabaseMetaData metaData) -> {
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
				for (String candidateSchema : spellings(schema)) {
					for (String candidateCatalog : spellings(catalog)) {
						for (String candidateTable : spellings(table)) {
							if (exists(metaData, candidateCatalog, candidateSchema, candidateTable)) {
								return true;
							}
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
