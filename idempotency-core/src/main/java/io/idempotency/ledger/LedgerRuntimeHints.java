package io.idempotency.ledger;

import java.util.List;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the ledger reads where resources and reflection are known ahead of time (a native image): its schema
 * scripts, read from the class path ({@link LedgerSchema}, and the starter's schema initialisation), and the
 * {@code DataSource} of a JPA or Hibernate transaction manager, read by reflection to find the connection it
 * binds. Listed in {@code META-INF/spring/aot.factories}.
 */
final class LedgerRuntimeHints implements RuntimeHintsRegistrar {

	/** The transaction managers whose {@code getDataSource()} {@link TransactionManagers} calls by name. */
	static final List<String> DATA_SOURCE_TRANSACTION_MANAGERS = List.of("org.springframework.orm.jpa.JpaTransactionManager",
			"org.springframework.orm.jpa.hibernate.HibernateTransactionManager");

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern(LedgerSchema.LOCATION + "schema-*.sql");
		DATA_SOURCE_TRANSACTION_MANAGERS.forEach((name) -> hints.reflection()
			.registerTypeIfPresent(classLoader, name,
					(type) -> type.withMethod("getDataSource", List.of(), ExecutableMode.INVOKE)));
	}

}
