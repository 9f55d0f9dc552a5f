package io.idempotency.ledger;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The database a ledger writes, made ready once when the ledger starts: its {@code DataSource} and table, the
 * dialect read from its metadata, a template that translates its errors as the ledger handles them, every
 * statement for the table (Galera's causal reads where it is a Galera node), the reading of its rows and the
 * ledger's own transactions. Each of the ledger's jobs takes what it needs from it.
 */
record LedgerDatabase(DataSource dataSource, TableName table, LedgerDialect dialect, JdbcTemplate jdbc,
		LedgerStatements sql, LedgerRows rows, OwnTransactions transactions) {

	/**
	 * Reads which database it is (and, on MariaDB and MySQL, whether it is a Galera node).
	 * @throws IllegalStateException if the database is not supported
	 */
	static LedgerDatabase of(DataSource dataSource, TableName table) {
		LedgerDialect dialect = LedgerDialect.of(dataSource);
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.setExceptionTranslator(DatabaseErrors.translator(jdbc.getExceptionTranslator()));
		LedgerStatements sql = new LedgerStatements(dialect, table, Galera.detect(dialect, jdbc));
		OwnTransactions transactions = new OwnTransactions(dataSource, jdbc);
		return new LedgerDatabase(dataSource, table, dialect, jdbc, sql, new LedgerRows(dialect), transactions);
	}

}
