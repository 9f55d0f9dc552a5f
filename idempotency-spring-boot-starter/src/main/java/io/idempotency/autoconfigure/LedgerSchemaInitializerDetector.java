package io.idempotency.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that {@link LedgerSchemaInitializer} initializes the database, after every other initializer:
 * Flyway's and Liquibase's migrations and the application's SQL scripts run first, so that the initializer
 * finds the table they created and leaves it, and never creates it under them (Flyway would then find a schema
 * that is not empty, and Liquibase a table its change set creates).
 */
class LedgerSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(LedgerSchemaInitializer.class);
	}

	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
