package io.idempotency.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/** Tells Spring Boot that {@link LedgerSchemaInitializer} initializes the database. */
class LedgerSchemaInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(LedgerSchemaInitializer.class);
	}

}
