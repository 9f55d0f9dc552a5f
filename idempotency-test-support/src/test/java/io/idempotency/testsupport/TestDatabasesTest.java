package io.idempotency.testsupport;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

class TestDatabasesTest {

	@ParameterizedTest
	@EnumSource(TestDatabase.class)
	void everySupportedDatabaseIsFoundAndAnswers(TestDatabase database) throws SQLException {
		try (Connection connection = TestDatabases.dataSource(database).getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("SELECT 1 + 1")) {
			assertThat(result.next()).isTrue();
			assertThat(result.getInt(1)).isEqualTo(2);
			String product = connection.getMetaData().getDatabaseProductName();
			assertThat(product.toLowerCase()).contains(switch (database) {
				case POSTGRESQL -> "postgresql";
				case MARIADB -> "maria";
				case H2 -> "h2";
			});
		}
	}

	@ParameterizedTest
	@EnumSource(value = TestDatabase.class, names = { "POSTGRESQL", "MARIADB" })
	void aServerIsSharedWithinTheTestRun(TestDatabase database) {
		assertThat(TestDatabases.dataSource(database)).isSameAs(TestDatabases.dataSource(database));
	}

	@org.junit.jupiter.api.Test
	void aDatabaseNoOneCanProvideSkipsItsTestsWithTheReasonOutsideCi() {
		assertThat(TestDatabases.unavailable("No MariaDB for tests: why", false))
			.isInstanceOf(org.opentest4j.TestAbortedException.class)
			.hasMessage("No MariaDB for tests: why");
	}

	@org.junit.jupiter.api.Test
	void aDatabaseNoOneCanProvideFailsItsTestsInCi() {
		assertThat(TestDatabases.unavailable("No MariaDB for tests: why", true))
			.isInstanceOf(IllegalStateException.class)
			.hasMessageStartingWith("No MariaDB for tests: why");
	}

	@org.junit.jupiter.api.Test
	void eachH2DatabaseIsNewAndEmpty() {
		assertThat(TestDatabases.dataSource(TestDatabase.H2)).isNotSameAs(TestDatabases.dataSource(TestDatabase.H2));
	}

}
