package io.idempotency.autoconfigure.observability;

import org.springframework.test.context.TestPropertySource;

/** The approvals over HTTP on MariaDb. */
@TestPropertySource(properties = "test.database=MARIADB")
class MariaDbApprovalsOverHttpTest extends ApprovalsOverHttpContractTests {

}
