package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.DatabaseFacts;
import io.idempotency.testsupport.EnabledWithPgBouncer;
import io.idempotency.testsupport.PgBouncer;
import io.idempotency.testsupport.TestDatabase;

/**
 * Outcomes written behind on PostgreSQL through PgBouncer in transaction pooling mode, with pgJDBC's {@code
 * prepareThreshold=0}: with {@code -Pclusters}.
 */
@EnabledWithPgBouncer
class PgBouncerWriteBehindTest extends WriteBehindContractTests {

	@Override
	DatabaseFacts facts() {
		return DatabaseFacts.of(TestDatabase.POSTGRESQL);
	}

	@Override
	DataSource dataSource() {
		return PgBouncer.shared().dataSource();
	}

}
