package io.idempotency.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class through {@linkplain PgBouncer PgBouncer in transaction pooling mode} in front of the tests'
 * PostgreSQL where it can be started: Debian's {@code pgbouncer} installed. Elsewhere the class is skipped with the
 * reason. The class carries the tag {@value ClusterCondition#TAG}: the default build leaves it out,
 * {@code -Pclusters} runs only such classes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(ClusterCondition.TAG)
@ExtendWith(ClusterCondition.Bouncer.class)
public @interface EnabledWithPgBouncer {

}
