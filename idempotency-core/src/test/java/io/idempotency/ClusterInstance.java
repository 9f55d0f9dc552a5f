package io.idempotency;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * One application instance in a test on a database cluster: its own ledger, on its own DataSource (one node, or
 * a URL that finds the primary), and the shared {@link ClusterTools}.
 */
final class ClusterInstance implements AutoCloseable {

	static final String LEDGER_TABLE = "tool_audit_cluster_test";

	private final AnnotationConfigApplicationContext context;

	private final ClusterTools tools;

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Instance {

		@Bean
		JdbcLedger ledger(DataSource dataSource) {
			return new JdbcLedger(dataSource, LEDGER_TABLE, Redaction.defaults());
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

	}

	ClusterInstance(DataSource dataSource, Map<String, AtomicInteger> effects) {
		this(dataSource, effects, new AtomicLong(), (call) -> {
		});
	}

	/** An instance whose calls are also told to the listener. */
	ClusterInstance(DataSource dataSource, Map<String, AtomicInteger> effects, AtomicLong lastEffectAt,
			IdempotentCallListener listener) {
		this(dataSource, effects, lastEffectAt, new ConcurrentHashMap<>(), listener);
	}

	/** An instance whose tool also notes when each external reference last took effect. */
	ClusterInstance(DataSource dataSource, Map<String, AtomicInteger> effects, AtomicLong lastEffectAt,
			Map<String, Queue<Long>> effectTimes, IdempotentCallListener listener) {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(IdempotentCallListener.class, () -> listener);
		// Shared for the whole test run: the context must not close it.
		this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
		this.context.registerBean(ClusterTools.class, () -> new ClusterTools(effects, lastEffectAt, effectTimes));
		this.context.register(Instance.class);
		this.context.refresh();
		this.tools = this.context.getBean(ClusterTools.class);
	}

	/** Books a slot in a run, as a tool call of that run does. */
	String bookSlot(String runId, String slot) {
		return RunContext.supply(new Run(runId, "agent-user"), () -> this.tools.bookSlot(slot));
	}

	JdbcLedger ledger() {
		return this.context.getBean(JdbcLedger.class);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
