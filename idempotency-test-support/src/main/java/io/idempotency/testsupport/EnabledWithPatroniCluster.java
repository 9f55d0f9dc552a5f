package io.idempotency.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class on the {@linkplain PatroniCluster Patroni cluster} (etcd, a PostgreSQL 15 primary and two
 * standbys) where it can be started: Patroni, etcd and PostgreSQL 15 installed, and the tests running as root.
 * Elsewhere the class is skipped with the reason. The class carries the tag {@value ClusterCondition#TAG}: the
 * default build leaves it out, {@code -Pclusters} runs only such classes.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(ClusterCondition.TAG)
@ExtendWith(ClusterCondition.Patroni.class)
public @interface EnabledWithPatroniCluster {

}
