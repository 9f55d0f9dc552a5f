package io.idempotency.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.beans.factory.annotation.Qualifier;

/**
 * Marks the {@link javax.sql.DataSource} that the idempotency ledger uses, in an application with more than
 * one, as {@code @FlywayDataSource} does for Flyway. Without it, the ledger uses the application's only
 * {@code DataSource}, or its {@code @Primary} one; with several and neither, the application does not start.
 *
 * <pre>
 * &#64;Bean
 * &#64;IdempotencyDataSource
 * DataSource ledgerDataSource() { ... }
 * </pre>
 */
@Target({ ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Qualifier
public @interface IdempotencyDataSource {

}
