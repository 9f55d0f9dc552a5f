package io.idempotency.ledger;

import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.PessimisticLockingFailureException;
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

}
