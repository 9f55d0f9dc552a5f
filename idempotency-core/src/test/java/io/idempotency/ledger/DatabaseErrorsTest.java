package io.idempotency.ledger;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.support.SQLStateSQLExceptionTranslator;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/** What the databases' own error codes say: serialization failures, deadlocks and lock waits told apart. */
class DatabaseErrorsTest {

	@Test
	void aSerializationFailureIsTheStandardStateOrTiDBsWriteConflictButNotADeadlockThatSharesTheState() {
		assertThat(DatabaseErrors.isSerializationFailure(new SQLTransactionRollbackException(
				"could not serialize access due to concurrent update", "40001", 0))).as("PostgreSQL, YugabyteDB").isTrue();
		assertThat(DatabaseErrors.isSerializationFailure(new SQLException("restart transaction", "40001")))
			.as("CockroachDB").isTrue();
		assertThat(DatabaseErrors.isSerializationFailure(new SQLException("Write conflict", "HY000", 9007))).as("TiDB")
			.isTrue();
		assertThat(DatabaseErrors.isSerializationFailure(new SQLException("Deadlock found", "40001", 1213)))
			.as("MySQL and MariaDB deadlock").isFalse();
		assertThat(DatabaseErrors.isSerializationFailure(new SQLException("Deadlock detected", "40001", 40001)))
			.as("H2 deadlock").isFalse();
		assertThat(DatabaseErrors.isSerializationFailure(new SQLException("deadlock detected", "40P01"))).isFalse();
		assertThat(DatabaseErrors.isSerializationFailure(new SQLException("unique violation", "23505"))).isFalse();
	}

	@Test
	void itIsFoundAmongTheCausesOfWhatSpringThrowsAndTranslatedAsALockingFailureTheLedgerMakesAgain() {
		SQLException serialization = new SQLTransactionRollbackException("could not serialize access", "40001", 0);
		assertThat(DatabaseErrors.isSerializationFailure(
				new TransactionSystemException("Could not commit JDBC transaction", serialization))).isTrue();

		var translated = DatabaseErrors.translator(new SQLStateSQLExceptionTranslator())
			.translate("claim", "INSERT", serialization);
		assertThat(translated).isExactlyInstanceOf(PessimisticLockingFailureException.class)
			.hasMessageContaining("serialization failure");
		assertThat(DatabaseErrors.isSerializationFailure(translated)).isTrue();
		assertThat(DatabaseErrors.translator(new SQLStateSQLExceptionTranslator())
			.translate("claim", "INSERT", new SQLException("Lock wait timeout exceeded", "HY000", 1205)))
			.isInstanceOf(CannotAcquireLockException.class);
	}

	@Test
	void aPreparedStatementOfAnotherServerConnectionNamesTheSettingToChange() {
		var translator = DatabaseErrors.translator(new SQLStateSQLExceptionTranslator());
		for (SQLException ex : new SQLException[] {
				new SQLException("ERROR: prepared statement \"S_11\" does not exist", "26000"),
				new SQLException("ERROR: prepared statement \"S_1\" already exists", "42P05"),
				new SQLException("ERROR: bind message supplies 4 parameters, but prepared statement \"S_57\" requires 2",
						"08P01") }) {
			assertThat(translator.translate("claim", "WITH", ex)).as(ex.getMessage())
				.isExactlyInstanceOf(InvalidDataAccessResourceUsageException.class)
				.hasMessageContaining("Set prepareThreshold=0 on the JDBC URL")
				.hasCause(ex);
		}
		assertThat(translator.translate("claim", "WITH", new SQLException("ERROR: prepared statement \"plan\" does not exist",
				"26000"))).as("a statement of the application's own").isNotInstanceOf(InvalidDataAccessResourceUsageException.class);
	}

	@Test
	void anErrorTheFallbackCannotTranslateIsUncategorizedNeverNull() {
		SQLException aborted = new SQLException("The database returned ROLLBACK", "25P02");

		assertThat(DatabaseErrors.translator(new SQLStateSQLExceptionTranslator()).translate("commit", null, aborted))
			.isInstanceOf(UncategorizedSQLException.class)
			.hasCause(aborted);
	}

}
