package io.idempotency.autoconfigure.observability;

import org.springframework.test.context.TestPropertySource;

/** The settlements over HTTP on H2. */
@TestPropertySource(properties = "test.database=H2")
class H2SettlementsOverHttpTest extends SettlementsOverHttpContractTests {

}
