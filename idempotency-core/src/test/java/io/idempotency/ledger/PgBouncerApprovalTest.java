package io.idempotency.ledger;

import javax.sql.DataSource;

import io.idempotency.testsupport.EnabledWithPgBouncer;
import io.idempotency.testsupport.PgBouncer;

/**
 * Approvals in the ledger on PostgreSQL through PgBouncer in transaction pooling mode, with pgJDBC's {@code
 * prepareThreshold=0}: with {@code -Pclusters}.
 */
@EnabledWithPgBouncer
class PgBouncerApprovalTest extends ApprovalContractTests {

	@Override
	DataSource dataSource() {
		return PgBouncer.shared().dataSource();
	}

}
