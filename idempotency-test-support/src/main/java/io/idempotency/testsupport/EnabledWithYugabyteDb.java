package io.idempotency.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Runs a test class on YugabyteDB only where one can be had ({@link TestDatabases#yugabyteDbAvailable()}): a
 * server named by {@code IDEMPOTENCY_TEST_YUGABYTEDB_URL}, or a Docker engine to run one in. Elsewhere, CI
 * included, the class is skipped with the reason.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@EnabledIf(value = "io.idempotency.testsupport.TestDatabases#yugabyteDbAvailable",
		disabledReason = "no YugabyteDB: it runs in a Docker container, and no Docker engine answers here"
				+ " (or set IDEMPOTENCY_TEST_YUGABYTEDB_URL)")
public @interface EnabledWithYugabyteDb {

}
