package io.idempotency.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * On a Spring Boot test class: the application's idempotent tools use an {@link InMemoryLedger} instead of
 * the JDBC ledger, so that the test needs no database for them. The ledger is a bean, to inject and assert on
 * with {@link LedgerAssertions}; it redacts the arguments that {@code idempotency.redaction.*} names, as the
 * JDBC ledger would. The reconciler reconciles it when the test calls
 * {@link io.idempotency.reconcile.Reconciler#reconcile()} (it is not scheduled: the test moves the ledger's
 * clock with {@link InMemoryLedger#advance}). With {@code idempotency.enabled=false} nothing is replaced.
 *
 * <p>The ledger lives as long as the test's application context, which Spring's test framework shares
 * between test classes of the same configuration: {@link InMemoryLedger#clear()} it before each test that
 * counts calls. What needs the JDBC ledger is not there: the health indicator, metrics and endpoint of the
 * ledger, and retention. An application with a tool that joins its caller's transaction (a transactional tool)
 * does not start on it: the start-up check refuses it, and such an application is tested on its database.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(InMemoryLedgerAutoConfiguration.class)
public @interface AutoConfigureInMemoryLedger {

}
