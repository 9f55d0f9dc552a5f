package io.idempotency.testsupport;

/** The databases the ledger supports, each of which the tests run on for real. */
public enum TestDatabase {

	POSTGRESQL("IDEMPOTENCY_TEST_POSTGRES_URL"),

	MARIADB("IDEMPOTENCY_TEST_MARIADB_URL"),

	H2(null);

	private final String urlVariable;

	TestDatabase(String urlVariable) {
		this.urlVariable = urlVariable;
	}

	/** The environment variable that names a running server's JDBC URL, or {@code null} for H2. */
	public String urlVariable() {
		return this.urlVariable;
	}

}
