package io.idempotency.autoconfigure.observability;

import org.springframework.test.context.TestPropertySource;

/** The approvals over HTTP on Postgresql. */
@TestPropertySource(properties = "test.database=POSTGRESQL")
class PostgresqlApprovalsOverHttpTest extends ApprovalsOverHttpContractTests {

}
