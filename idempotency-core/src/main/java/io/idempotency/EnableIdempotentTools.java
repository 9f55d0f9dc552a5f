package io.idempotency;

import io.idempotency.advice.IdempotentToolsRegistrar;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Turns on {@link IdempotentTool} in an application that does not use the Spring Boot starter. The
 * application context must hold a {@link io.idempotency.ledger.JdbcLedger}; where it holds a
 * {@code PlatformTransactionManager}, a {@code JsonMapper} or {@link io.idempotency.run.RunSource}s, they
 * are used.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(IdempotentToolsRegistrar.class)
public @interface EnableIdempotentTools {

	/**
	 * Whether proxies are made by class (CGLIB), which Spring AI needs to call {@code @Tool} methods.
	 * Default {@code true}; this applies to every proxy of the application's auto-proxy creator.
	 */
	boolean proxyTargetClass() default true;

}
