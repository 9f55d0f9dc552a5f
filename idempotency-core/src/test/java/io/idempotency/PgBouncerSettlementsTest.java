package io.idempotency;

import javax.sql.DataSource;

import io.idempotency.testsupport.EnabledWithPgBouncer;
import io.idempotency.testsupport.PgBouncer;

/**
 * Settlements on PostgreSQL through PgBouncer in transaction pooling mode, with pgJDBC's {@code
 * prepareThreshold=0}: with {@code -Pclusters}.
 */
@EnabledWithPgBouncer
class PgBouncerSettlementsTest extends SettlementsContractTests {

	@Override
	DataSource dataSource() {
		return PgBouncer.shared().dataSource();
	}

}
