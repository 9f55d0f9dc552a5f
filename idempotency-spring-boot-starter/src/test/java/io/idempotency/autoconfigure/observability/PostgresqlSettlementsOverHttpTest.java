package io.idempotency.autoconfigure.observability;

import org.springframework.test.context.TestPropertySource;

/** The settlements over HTTP on Postgresql. */
@TestPropertySource(properties = "test.database=POSTGRESQL")
class PostgresqlSettlementsOverHttpTest extends SettlementsOverHttpContractTests {

}
