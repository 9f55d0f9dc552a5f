package io.idempotency;

import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** An application with the idempotent-tools advice, a ledger on a fresh table, and one bean of tools. */
final class ToolContexts {

	private ToolContexts() {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Advice {

	}

	/** Drops and creates the table, then starts the application. */
	static <T> AnnotationConfigApplicationContext start(DataSource dataSource, String ledgerTable, Class<T> toolsType,
			Supplier<T> tools) {
		return start(dataSource, ledgerTable, toolsType, tools, (context) -> {
		});
	}

	/** Drops and creates the table, then starts the application with the beans given too. */
	static <T> AnnotationConfigApplicationContext start(DataSource dataSource, String ledgerTable, Class<T> toolsType,
			Supplier<T> tools, Consumer<AnnotationConfigApplicationContext> beans) {
		LedgerSchema.drop(dataSource, ledgerTable);
		LedgerSchema.create(dataSource, ledgerTable);
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		// Shared for the whole test run: the context must not close it.
		context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
		context.registerBean(JdbcLedger.class, () -> new JdbcLedger(dataSource, ledgerTable, Redaction.defaults()));
		context.registerBean(toolsType, tools);
		beans.accept(context);
		context.register(Advice.class);
		context.refresh();
		return context;
	}

}
