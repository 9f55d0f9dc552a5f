package io.idempotency.benchmarks;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.OutcomeWriteBehind;
import io.idempotency.ledger.Redaction;
import io.idempotency.ledger.ReplayCache;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * An application as a user writes one: {@code @IdempotentTool} methods behind the library's proxy, on
 * a ledger with or without the replay cache. Calls are made as an agent makes them, inside a run.
 */
final class Agent implements AutoCloseable {

	static final String USER = "user-1";

	static final String ACCOUNT = "Henderson Industrial";

	private final AnnotationConfigApplicationContext context;

	private final NoteTools tools;

	private final JdbcLedger ledger;

	private final AtomicLong runs = new AtomicLong();

	/** Runs of this agent only: two agents on one table never repeat each other's calls. */
	private final String runPrefix = "run-" + UUID.randomUUID() + "-";

	private final Run replayedRun = new Run("replayed-run", USER);

	Agent(DataSource dataSource, boolean replayCache) {
		this(dataSource, replayCache, OutcomeWriteBehind.off());
	}

	/** An agent whose ledger writes outcomes behind their callers as told. */
	Agent(DataSource dataSource, boolean replayCache, OutcomeWriteBehind writeBehind) {
		this.context = new AnnotationConfigApplicationContext();
		// The pool is the benchmark's: the context must not close it.
		this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
		this.context.registerBean(ReplayCache.class,
				() -> replayCache ? new ReplayCache(10_000, Duration.ofMinutes(10)) : ReplayCache.off());
		this.context.registerBean(OutcomeWriteBehind.class, () -> writeBehind);
		this.context.register(Application.class);
		this.context.refresh();
		this.tools = this.context.getBean(NoteTools.class);
		this.ledger = this.context.getBean(JdbcLedger.class);
		replay();
		replay();
	}

	/** A call in a run of its own: it executes. */
	NoteTools.Note executed() {
		return RunContext.supply(nextRun(), () -> this.tools.note(ACCOUNT, 200));
	}

	/** A transactional call in a run of its own: claim, effect and outcome commit together. */
	NoteTools.Note executedInTransaction() {
		return RunContext.supply(nextRun(), () -> this.tools.noteInTransaction(ACCOUNT, 200));
	}

	/** The same call in the same run, again: answered from the ledger (or memory), not executed. */
	NoteTools.Note replay() {
		return RunContext.supply(this.replayedRun, () -> this.tools.note(ACCOUNT, 200));
	}

	/** A call in the given run: for callers that share one key. */
	NoteTools.Note inRun(String runId) {
		return RunContext.supply(new Run(runId, USER), () -> this.tools.note(ACCOUNT, 200));
	}

	long executions() {
		return this.tools.executions();
	}

	JdbcLedger ledger() {
		return this.ledger;
	}

	private Run nextRun() {
		return new Run(this.runPrefix + this.runs.incrementAndGet(), USER);
	}

	@Override
	public void close() {
		this.ledger.flushReplayCounts();
		this.context.close();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Application {

		@Bean
		JdbcLedger ledger(DataSource dataSource, ReplayCache replayCache, OutcomeWriteBehind writeBehind) {
			return new JdbcLedger(dataSource, BenchmarkDatabase.TABLE, Redaction.defaults(), replayCache, writeBehind);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		NoteTools noteTools() {
			return new NoteTools();
		}

	}

}
