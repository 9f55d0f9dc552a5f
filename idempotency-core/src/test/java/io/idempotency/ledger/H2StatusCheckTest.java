package io.idempotency.ledger;

import java.util.List;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKeys;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * H2 2.4 evaluates the IN list of a check constraint with the session that created the table, and refuses every
 * insert once that session has closed: a ledger on a table made by a connection that a pool has since retired
 * (after its maximum lifetime: 30 minutes by default) could claim no call. Here every connection closes after
 * each use, as that one did: the schema script's table, and the migrations' up to the approvals, which write the
 * check anew, take each of the eight statuses.
 */
class H2StatusCheckTest {

	/** The statuses the table allows: those of the ledger's calls, and those of a person's approval. */
	private static final List<String> STATUSES = List.of("attempting", "succeeded", "failed", "unknown", "awaiting",
			"approved", "rejected", "expired");

	private final DataSource dataSource = new DriverManagerDataSource(
			"jdbc:h2:mem:status-check-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");

	@Test
	void aTableMadeByTheSchemaScriptTakesClaimsOnceTheConnectionThatMadeItHasClosed() {
		LedgerSchema.create(this.dataSource, "tool_audit");
		JdbcLedger ledger = new JdbcLedger(this.dataSource);
		try {
			ClaimRequest request = new ClaimRequest(IdempotencyKeys.derive("send_quote", "{\"qty\":3}", "r1"), "r1",
					"u1", "send_quote", "{\"qty\":3}", Set.of());

			Claim claim = ledger.claim(request);

			assertThat(claim).isInstanceOf(Claim.Won.class);
			assertThat(ledger.recordSucceeded((Claim.Won) claim, "\"Q-1\"")).isTrue();
			assertThat(ledger.find(request.key()).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		}
		finally {
			ledger.close();
		}
	}

	@Test
	void aTableMadeByTheSchemaScriptTakesEveryStatusOnceTheConnectionThatMadeItHasClosed() {
		LedgerSchema.create(this.dataSource, "tool_audit");

		assertTakesEveryStatusAndRefusesAnyOther();
	}

	@Test
	void aTableMigratedToTheApprovalsTakesEveryStatusOnceTheConnectionsThatMigratedItHaveClosed() {
		for (String migration : List.of("V1_0_0_0_1__idempotency_ledger.sql", "V1_0_0_0_2__idempotency_ledger_settlements.sql",
				"V1_0_0_0_3__idempotency_ledger_status_check.sql", "V1_0_0_0_4__idempotency_ledger_approvals.sql")) {
			new ResourceDatabasePopulator(new ClassPathResource("io/idempotency/ledger/migration/h2/" + migration))
				.execute(this.dataSource);
		}

		assertTakesEveryStatusAndRefusesAnyOther();
	}

	/** Each of the eight statuses, each on a connection of its own, and then one outside them. */
	private void assertTakesEveryStatusAndRefusesAnyOther() {
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);
		for (String status : STATUSES) {
			jdbc.update("INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status) VALUES (?, 'r', 't',"
					+ " '{}', ?)", "k-" + status, status);
		}
		assertThat(jdbc.queryForList("SELECT status FROM tool_audit ORDER BY id", String.class))
			.containsExactlyElementsOf(STATUSES);
		assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> jdbc.update(
				"INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status) VALUES ('k', 'r', 't', '{}',"
						+ " 'done')"));
	}

	@Test
	void theStatusCheckStillRefusesAStatusTheLedgerDoesNotWrite() {
		LedgerSchema.create(this.dataSource, "tool_audit");
		JdbcTemplate jdbc = new JdbcTemplate(this.dataSource);

		assertThatExceptionOfType(DataIntegrityViolationException.class).isThrownBy(() -> jdbc.update(
				"INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status) VALUES ('k', 'r', 't', '{}',"
						+ " 'done')"));
		for (LedgerStatus status : LedgerStatus.values()) {
			jdbc.update("INSERT INTO tool_audit (idempotency_key, run_id, tool, arguments, status) VALUES (?, 'r', 't',"
					+ " '{}', ?)", "k-" + status, status.columnValue());
		}
		assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM tool_audit", Integer.class))
			.isEqualTo(LedgerStatus.values().length);
	}

}
