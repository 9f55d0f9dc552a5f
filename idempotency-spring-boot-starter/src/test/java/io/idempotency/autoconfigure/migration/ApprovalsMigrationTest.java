package io.idempotency.autoconfigure.migration;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.FreshSchema;
import io.idempotency.testsupport.TestDatabase;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateOutput;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;

import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.CHANGELOG;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.LOCATION;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.approvalsChangeSet;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.changeSet;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.changeSets;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.liquibase;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.tableOf;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.vendorOf;
import static io.idempotency.autoconfigure.migration.LedgerMigrationsTest.withH2StatusCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The migration {@code 1.0.0.0.4}, a person's approval before the effect, on a table that the ledger's migrations
 * made before it, holding rows of every status of that time: Flyway and Liquibase bring it to the table of the
 * schema script; its rows keep their statuses; the statuses of approval are taken, with the approval columns; any
 * other status is still refused; and the rows awaiting approval have their index.
 */
class ApprovalsMigrationTest {

	private static final List<String> EARLIER_STATUSES = List.of("attempting", "succeeded", "failed", "unknown");

	private static final List<String> APPROVAL_STATUSES = List.of("awaiting", "approved", "rejected", "expired");

	/** The ledger's changelog as it was before {@code 1.0.0.0.4}. */
	private static final String CHANGELOG_BEFORE_APPROVALS = "classpath:io/idempotency/autoconfigure/migration/liquibase/"
			+ "db.changelog-idempotency-1.0.0.0.3.yaml";

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void flywayBringsATableOfTheEarlierMigrationsAndItsRowsToTheSchemaScriptsTable(TestDatabase database) {
		try (FreshSchema migrated = FreshSchema.on(database); FreshSchema scripted = FreshSchema.on(database)) {
			// The latest migration before 1.0.0.0.4: 1.0.0.0.3 on H2 only.
			flyway(database, migrated).target((database == TestDatabase.H2) ? "1.0.0.0.3" : "1.0.0.0.2")
				.load()
				.migrate();
			Map<String, String> earlier = aRowOfEachEarlierStatus(migrated);

			MigrateResult result = flyway(database, migrated).load().migrate();

			assertThat(result.migrations).extracting((MigrateOutput migration) -> migration.version)
				.containsExactly("1.0.0.0.4");
			LedgerSchema.create(scripted.dataSource(), "tool_audit");
			aRowOfEachEarlierStatus(scripted);
			assertThat(tableOf(migrated)).isEqualTo(tableOf(scripted));
			assertApprovalsAreTaken(migrated, earlier);
		}
	}

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void liquibaseBringsATableOfTheEarlierChangeSetsAndItsRowsToTheSchemaScriptsTable(TestDatabase database)
			throws Exception {
		try (FreshSchema migrated = FreshSchema.on(database); FreshSchema scripted = FreshSchema.on(database)) {
			liquibase(migrated.dataSource(), CHANGELOG_BEFORE_APPROVALS);
			Map<String, String> earlier = aRowOfEachEarlierStatus(migrated);

			liquibase(migrated.dataSource(), CHANGELOG);

			assertThat(changeSets(migrated.dataSource())).containsExactlyElementsOf(withH2StatusCheck(database,
					changeSet("1.0.0.0.1", database) + " EXECUTED", changeSet("1.0.0.0.2", database) + " EXECUTED",
					approvalsChangeSet(database, "EXECUTED")));
			LedgerSchema.create(scripted.dataSource(), "tool_audit");
			aRowOfEachEarlierStatus(scripted);
			assertThat(tableOf(migrated)).isEqualTo(tableOf(scripted));
			assertApprovalsAreTaken(migrated, earlier);
		}
	}

	private static FluentConfiguration flyway(TestDatabase database, FreshSchema schema) {
		return Flyway.configure().dataSource(schema.dataSource()).locations("classpath:" + LOCATION + vendorOf(database));
	}

	/**
	 * Inserts a row of each status of the table before {@code 1.0.0.0.4} (into the schema script's table too, so
	 * that both tables count their ids alike); returns each row's key and status.
	 */
	private static Map<String, String> aRowOfEachEarlierStatus(FreshSchema schema) {
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		Map<String, String> rows = new TreeMap<>();
		for (String status : EARLIER_STATUSES) {
			jdbc.update("INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status, started_at)"
					+ " VALUES (?, 'run-1', 'send_quote', '{}', ?, CURRENT_TIMESTAMP)", "key-" + status, status);
			rows.put("key-" + status, status);
		}
		return rows;
	}

	private static void assertApprovalsAreTaken(FreshSchema schema, Map<String, String> earlier) {
		JdbcTemplate jdbc = new JdbcTemplate(schema.dataSource());
		assertThat(statuses(jdbc)).as("the rows of before, with their statuses").isEqualTo(earlier);

		for (String status : APPROVAL_STATUSES) {
			jdbc.update("INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status, started_at,"
					+ " approval_reason, decided_by, decided_at, decision_reason) VALUES (?, 'run-1', 'send_quote', '{}', ?,"
					+ " CURRENT_TIMESTAMP, 'a refund above 500 EUR', 'ops@example.com', CURRENT_TIMESTAMP, ?)",
					"key-" + status, status, "decided: " + status);
		}
		assertThat(jdbc.query("SELECT status, approval_reason, decided_by, decided_at, decision_reason FROM tool_audit"
				+ " WHERE approval_reason IS NOT NULL ORDER BY status",
				(row, n) -> String.join(" | ", row.getString(1), row.getString(2), row.getString(3),
						(row.getObject(4) != null) ? "decided_at" : "no decided_at", row.getString(5))))
			.as("the rows of the statuses of approval, with the approval columns")
			.containsExactly("approved | a refund above 500 EUR | ops@example.com | decided_at | decided: approved",
					"awaiting | a refund above 500 EUR | ops@example.com | decided_at | decided: awaiting",
					"expired | a refund above 500 EUR | ops@example.com | decided_at | decided: expired",
					"rejected | a refund above 500 EUR | ops@example.com | decided_at | decided: rejected");

		assertThatExceptionOfType(DataIntegrityViolationException.class).as("a status outside the eight")
			.isThrownBy(() -> jdbc.update("INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status,"
					+ " started_at) VALUES ('key-done', 'run-1', 'send_quote', '{}', 'done', CURRENT_TIMESTAMP)"));
		assertThat(statuses(jdbc)).hasSize(EARLIER_STATUSES.size() + APPROVAL_STATUSES.size());

		assertTheRowsAwaitingApprovalHaveTheirIndex(schema, jdbc);
	}

	private static Map<String, String> statuses(JdbcTemplate jdbc) {
		Map<String, String> statuses = new TreeMap<>();
		jdbc.query("SELECT idempotency_key, status FROM tool_audit", (row, n) -> List.of(row.getString(1), row.getString(2)))
			.forEach((row) -> statuses.put(row.get(0), row.get(1)));
		return statuses;
	}

	/**
	 * PostgreSQL's partial index on the rows awaiting approval; MariaDB's index on the generated column
	 * {@code awaiting_since}, set on those rows only; H2's index on {@code (status, started_at)}.
	 */
	private static void assertTheRowsAwaitingApprovalHaveTheirIndex(FreshSchema schema, JdbcTemplate jdbc) {
		switch (schema.database()) {
			case POSTGRESQL -> assertThat(jdbc.queryForList("SELECT replace(indexdef, current_schema() || '.', '')"
					+ " FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'tool_audit_awaiting_ix'",
					String.class))
				.containsExactly("CREATE INDEX tool_audit_awaiting_ix ON tool_audit USING btree (started_at)"
						+ " WHERE ((status)::text = 'awaiting'::text)");
			case MARIADB -> {
				assertThat(jdbc.queryForList("SELECT column_name FROM information_schema.statistics"
						+ " WHERE table_schema = DATABASE() AND table_name = 'tool_audit'"
						+ " AND index_name = 'tool_audit_awaiting_ix'", String.class))
					.containsExactly("awaiting_since");
				assertThat(jdbc.queryForList("SELECT idempotency_key FROM tool_audit WHERE awaiting_since IS NOT NULL",
						String.class))
					.containsExactly("key-awaiting");
			}
			case H2 -> assertThat(jdbc.queryForList("SELECT column_name FROM information_schema.index_columns"
					+ " WHERE table_name = 'TOOL_AUDIT' AND index_name = 'TOOL_AUDIT_STATUS_STARTED_IX'"
					+ " ORDER BY ordinal_position", String.class))
				.containsExactly("STATUS", "STARTED_AT");
		}
	}

}
