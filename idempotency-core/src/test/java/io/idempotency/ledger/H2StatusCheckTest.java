package io.idempotency.ledger;

import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKeys;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * H2 2.4 evaluates the IN list of a check constraint with the session that created the table, and refuses every
 * insert once that session has closed: a ledger on a table made by a connection that a pool has since retired
 * (after its maximum lifetime: 30 minutes by default) could claim no call. Here every connection closes after
 * each use, as that one did.
 */
class H2StatusCheckTest {

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
