package io.idempotency.autoconfigure.observability;

import org.springframework.test.context.TestPropertySource;

/** The settlements over HTTP on MariaDb. */
@TestPropertySource(properties = "test.database=MARIADB")
class MariaDbSettlementsOverHttpTest extends SettlementsOverHttpContractTests {

}
