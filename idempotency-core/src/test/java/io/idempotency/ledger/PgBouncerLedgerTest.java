package io.idempotency.ledger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.EnabledWithPgBouncer;
import io.idempotency.testsupport.PgBouncer;
import io.idempotency.testsupport.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.dao.InvalidDataAccessResourceUsageException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The ledger's contract on PostgreSQL through PgBouncer in transaction pooling mode, with pgJDBC's {@code
 * prepareThreshold=0}: with {@code -Pclusters}.
 */
@EnabledWithPgBouncer
class PgBouncerLedgerTest extends LedgerContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return PgBouncer.shared().dataSource();
	}

	/**
	 * Without {@code prepareThreshold=0}, pgJDBC prepares a statement it ran five times on one connection as a named
	 * statement of the server connection it then ran on; PgBouncer runs the next one on another, which has no such
	 * statement (or another one of that name). Outside a transaction pgJDBC prepares it again and runs it; inside
	 * one (here the ledger's own, on a pool with auto-commit off) it cannot: the claim is refused with the setting
	 * named, and nothing is written.
	 */
	@Test
	void aClaimOnAServerConnectionWithoutTheDriversPreparedStatementIsRefusedWithTheSettingToChange() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(PgBouncer.shared().url(""));
		config.setMaximumPoolSize(1);
		config.setAutoCommit(false);
		config.setPoolName("server-prepared-statements");
		try (HikariDataSource pool = new HikariDataSource(config)) {
			JdbcLedger ledger = new JdbcLedger(pool, TABLE, Redaction.defaults());
			for (int n = 0; n < 6; n++) {
				assertThat(ledger.claim(request("r1", "{\"n\":" + n + "}"))).isInstanceOf(Claim.Won.class);
			}
			PgBouncer.shared().closeServerConnections();

			assertThatExceptionOfType(InvalidDataAccessResourceUsageException.class)
				.isThrownBy(() -> ledger.claim(request("r1", "{\"n\":6}")))
				.withMessageContaining("does not exist")
				.withMessageContaining("Set prepareThreshold=0 on the JDBC URL");
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isEqualTo(6);
		}
	}

}
