package io.idempotency.ledger;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import javax.sql.DataSource;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.datasource.init.DatabasePopulatorUtils;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The ledger's schema scripts, shipped in this jar under {@code io/idempotency/ledger/}:
 * {@code schema-postgresql.sql}, {@code schema-mysql.sql} (MariaDB and MySQL) and {@code schema-h2.sql},
 * each with a {@code schema-drop-<platform>.sql}. They create the table {@code tool_audit}; this class
 * applies them, for that name or another.
 *
 * <p>For Flyway and Liquibase the jar ships the same table as versioned migrations, which create exactly
 * what the scripts create: Flyway's under {@code io/idempotency/ledger/migration/<vendor>/} (the vendors
 * {@code postgresql}, {@code mariadb}, {@code mysql} and {@code h2}, as Spring Boot names them for
 * {@code spring.flyway.locations=...,classpath:io/idempotency/ledger/migration/{vendor}}), and the changelog
 * {@code io/idempotency/ledger/changelog/db.changelog-idempotency.yaml} for an application's master changelog
 * to include. They create {@code tool_audit} only. A table made by a script of an earlier version is brought
 * up to date by the migrations that came after it ({@link #upgradeLocation}, {@link #approvalsUpgradeLocation}).
 */
public final class LedgerSchema {

	static final String LOCATION = "io/idempotency/ledger/";

	/**
	 * The columns where a settlement by hand is recorded, added by the migration {@code 1.0.0.0.2}: a table made
	 * before it serves calls, but cannot be settled by hand until it has them.
	 */
	public static final List<String> SETTLEMENT_COLUMNS = List.of("settled_by", "settled_at", "settle_reason");

	/**
	 * The columns where a person's approval before the effect is recorded, added by the migration
	 * {@code 1.0.0.0.4}: a table made before it serves calls of tools that need no approval, but no tool that needs
	 * approval can claim on it until it has them.
	 */
	public static final List<String> APPROVAL_COLUMNS = List.of("approval_reason", "decided_by", "decided_at",
			"decision_reason");

	private LedgerSchema() {
	}

	/** The classpath location of the creation script for a platform, for example {@code postgresql}. */
	public static String createScriptLocation(String platform) {
		return "classpath:" + LOCATION + "schema-" + platform + ".sql";
	}

	/** The classpath location of the drop script for a platform. */
	public static String dropScriptLocation(String platform) {
		return "classpath:" + LOCATION + "schema-drop-" + platform + ".sql";
	}

	/**
	 * The classpath location of the migration that adds the {@linkplain #SETTLEMENT_COLUMNS settlement columns}
	 * to a table made before them, for a platform ({@code postgresql}, {@code mysql} or {@code h2}). It names
	 * the table {@code tool_audit}.
	 */
	public static String upgradeLocation(String platform) {
		return migrationLocation(platform, "V1_0_0_0_2__idempotency_ledger_settlements.sql");
	}

	/**
	 * The classpath location of the migration that adds the {@linkplain #APPROVAL_COLUMNS approval columns} to a
	 * table made before them, and allows the statuses of approval, for a platform ({@code postgresql},
	 * {@code mysql} or {@code h2}). It names the table {@code tool_audit}. A table made before the
	 * {@linkplain #SETTLEMENT_COLUMNS settlement columns} takes {@link #upgradeLocation} first.
	 */
	public static String approvalsUpgradeLocation(String platform) {
		return migrationLocation(platform, "V1_0_0_0_4__idempotency_ledger_approvals.sql");
	}

	private static String migrationLocation(String platform, String script) {
		return "classpath:" + LOCATION + "migration/" + platform + "/" + script;
	}

	/** The script platform of a database: {@code postgresql}, {@code mysql} or {@code h2}. */
	public static String platformOf(DataSource dataSource) {
		return LedgerDialect.of(dataSource).platform();
	}

	/** The creation script for a platform and a table name. */
	public static String createScript(String platform, String tableName) {
		return TableName.of(tableName).applyTo(read("schema-" + platform + ".sql"));
	}

	/** Creates the ledger table and its indexes. */
	public static void create(DataSource dataSource, String tableName) {
		run(dataSource, createScript(platformOf(dataSource), tableName));
	}

	/** Drops the ledger table, if it exists. */
	public static void drop(DataSource dataSource, String tableName) {
		run(dataSource, TableName.of(tableName).applyTo(read("schema-drop-" + platformOf(dataSource) + ".sql")));
	}

	private static void run(DataSource dataSource, String script) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator(
				new ByteArrayResource(script.getBytes(StandardCharsets.UTF_8)));
		populator.setSqlScriptEncoding(StandardCharsets.UTF_8.name());
		DatabasePopulatorUtils.execute(populator, dataSource);
	}

	private static String read(String name) {
		try (InputStream in = LedgerSchema.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalArgumentException("There is no ledger schema script " + LOCATION + name);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
