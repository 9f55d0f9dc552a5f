package io.idempotency.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class on the {@linkplain GaleraCluster three-node MariaDB Galera cluster} where it can be started:
 * MariaDB's server, the Galera provider and rsync installed, and the tests running as root. Elsewhere the class is
 * skipped with the reason. The class carries the tag {@value ClusterCondition#TAG}: the default build leaves it
 * out, {@code -Pclusters} runs only such classes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(ClusterCondition.TAG)
@ExtendWith(ClusterCondition.Galera.class)
public @interface EnabledWithGaleraCluster {

}
