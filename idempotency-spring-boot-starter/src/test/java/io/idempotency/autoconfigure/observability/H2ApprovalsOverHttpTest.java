package io.idempotency.autoconfigure.observability;

import org.springframework.test.context.TestPropertySource;

/** The approvals over HTTP on H2. */
@TestPropertySource(properties = "test.database=H2")
class H2ApprovalsOverHttpTest extends ApprovalsOverHttpContractTests {

}
