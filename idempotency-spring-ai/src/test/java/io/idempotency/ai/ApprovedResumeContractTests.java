package io.idempotency.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.Redaction;
import io.idempotency.reconcile.Approvals;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Approved calls resumed on a ledger on each database: two instances (two application contexts, each with its
 * own {@link JdbcLedger} over one {@code DataSource}) resuming the same approved call at once, from many threads,
 * execute it exactly once; and a transactional tool that needs approval waits in its caller's transaction, which
 * still commits, and once approved executes once in it.
 */
abstract class ApprovedResumeContractTests {

	static final String LEDGER_TABLE = "tool_audit_approved_resume_test";

	static final String REFUNDS_TABLE = "approved_refunds";

	private static final JsonMapper JSON = new JsonMapper();

	private static final int ROUNDS = 20;

	private static final int THREADS = 8;

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	public static class RefundDesk {

		/** Static: counts the executions of both instances; the beans are class-based proxies. */
		static final AtomicInteger refunds = new AtomicInteger();

		private final JdbcTemplate jdbc;

		public RefundDesk(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
		}

		@Tool(name = "refund", description = "Refund an order")
		@IdempotentTool(reconcile = "findRefund", requiresApproval = true)
		public String refund(String order, ToolContext toolContext) {
			return "refund " + refunds.incrementAndGet() + " of " + order;
		}

		@Tool(name = "record_refund", description = "Record a refund of an order")
		@IdempotentTool(reconcile = "findRefund", transactional = true, requiresApproval = true)
		public String recordRefund(String order, ToolContext toolContext) {
			this.jdbc.update("INSERT INTO " + REFUNDS_TABLE + " (order_ref) VALUES (?)", order);
			return "recorded " + refunds.incrementAndGet() + " of " + order;
		}

		Reconciliation<String> findRefund(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	private DataSource dataSource;

	private JdbcTemplate jdbc;

	private final List<AnnotationConfigApplicationContext> instances = new ArrayList<>();

	private Approvals approvals;

	abstract DataSource dataSource();

	@BeforeEach
	void start() {
		this.dataSource = dataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		LedgerSchema.drop(this.dataSource, LEDGER_TABLE);
		LedgerSchema.create(this.dataSource, LEDGER_TABLE);
		this.jdbc.execute("DROP TABLE IF EXISTS " + REFUNDS_TABLE);
		this.jdbc.execute("CREATE TABLE " + REFUNDS_TABLE + " (order_ref VARCHAR(100) NOT NULL)");
		RefundDesk.refunds.set(0);
		for (int i = 0; i < 2; i++) {
			AnnotationConfigApplicationContext instance = new AnnotationConfigApplicationContext();
			DataSource shared = this.dataSource;
			// Shared for the whole test run: the context must not close it.
			instance.registerBean(DataSource.class, () -> new DelegatingDataSource(shared));
			instance.registerBean(JdbcLedger.class, () -> new JdbcLedger(shared, LEDGER_TABLE, Redaction.defaults()));
			instance.registerBean(PlatformTransactionManager.class, () -> new JdbcTransactionManager(shared));
			instance.registerBean(RefundDesk.class, () -> new RefundDesk(shared));
			instance.register(Enabled.class);
			instance.refresh();
			this.instances.add(instance);
		}
		this.approvals = new Approvals(this.instances.get(0).getBean(JdbcLedger.class).approvals(), Duration.ofHours(1),
				(event) -> {
				});
	}

	@AfterEach
	void stop() {
		this.instances.forEach(AnnotationConfigApplicationContext::close);
	}

	private ToolCallback callback(int instance, String tool) {
		for (ToolCallback callback : IdempotentToolCallbacks.from(this.instances.get(instance).getBean(RefundDesk.class))) {
			if (callback.getToolDefinition().name().equals(tool)) {
				return callback;
			}
		}
		throw new IllegalArgumentException("no tool " + tool);
	}

	private static ToolContext run(String runId) {
		return new ToolContext(Map.of("runId", runId, "userId", "rep-1"));
	}

	private static String kind(String read) {
		if (!read.startsWith("{")) {
			return "executed";
		}
		JsonNode json = JSON.readTree(read);
		return json.has("kind") ? json.get("kind").asString() : "executed";
	}

	private IdempotencyKey waiting(String tool) {
		return this.approvals.awaiting(tool, 0, 10).get(0).entry().key();
	}

	@Test
	void twoInstancesResumingTheSameApprovedCallAtOnceExecuteItOnce() throws Exception {
		ToolCallback[] callbacks = { callback(0, "refund"), callback(1, "refund") };
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			for (int round = 0; round < ROUNDS; round++) {
				String arguments = "{\"order\":\"O-" + round + "\"}";
				ToolContext run = run("resume-run-" + round);
				assertThat(kind(callbacks[round % 2].call(arguments, run))).isEqualTo("awaiting_approval");
				this.approvals.approve(waiting("refund"), "ops", "ok");
				int before = RefundDesk.refunds.get();
				CyclicBarrier start = new CyclicBarrier(THREADS);
				List<Future<String>> answers = new ArrayList<>();
				for (int thread = 0; thread < THREADS; thread++) {
					ToolCallback callback = callbacks[thread % 2];
					answers.add(pool.submit(() -> {
						start.await(30, TimeUnit.SECONDS);
						return callback.call(arguments, run);
					}));
				}
				List<String> kinds = new ArrayList<>();
				for (Future<String> answer : answers) {
					kinds.add(kind(answer.get(60, TimeUnit.SECONDS)));
				}

				assertThat(RefundDesk.refunds.get() - before).as("executions in round " + round + ": " + kinds)
					.isEqualTo(1);
				assertThat(kinds).as("round " + round).containsOnlyOnce("executed");
				assertThat(kinds).as("round " + round).allMatch((kind) -> List.of("executed", "in_progress", "replayed")
					.contains(kind));
				assertThat(kind(callbacks[(round + 1) % 2].call(arguments, run))).isEqualTo("replayed");
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + LEDGER_TABLE + " WHERE status = 'succeeded'",
				Integer.class)).isEqualTo(ROUNDS);
	}

	@Test
	void aTransactionalToolThatNeedsApprovalWaitsInItsCallersTransactionAndExecutesOnceApproved() {
		TransactionTemplate callers = callersTransaction();
		ToolCallback recordRefund = callback(0, "record_refund");
		ToolContext run = run("transactional-run");
		String arguments = "{\"order\":\"O-T\"}";

		String first = callers.execute((status) -> {
			this.jdbc.update("INSERT INTO " + REFUNDS_TABLE + " (order_ref) VALUES (?)", "callers-own-work");
			String read = recordRefund.call(arguments, run);
			assertThat(status.isRollbackOnly()).as("the answer does not roll the caller's work back").isFalse();
			return read;
		});

		assertThat(kind(first)).isEqualTo("awaiting_approval");
		assertThat(this.jdbc.queryForList("SELECT order_ref FROM " + REFUNDS_TABLE, String.class))
			.as("the caller's work committed, and nothing of the tool's").containsExactly("callers-own-work");
		assertThat(this.approvals.awaiting("record_refund", 0, 10)).as("the waiting row committed with it")
			.singleElement()
			.satisfies((request) -> assertThat(request.entry().status()).isEqualTo(LedgerStatus.AWAITING_APPROVAL));
		assertThat(kind(callers.execute((status) -> recordRefund.call(arguments, run)))).isEqualTo("awaiting_approval");
		assertThat(kind(recordRefund.call(arguments, run))).as("outside any caller's transaction")
			.isEqualTo("awaiting_approval");
		assertThat(RefundDesk.refunds).hasValue(0);

		this.approvals.approve(waiting("record_refund"), "ops", "ok");
		String executed = callers.execute((status) -> recordRefund.call(arguments, run));
		String replayed = callback(1, "record_refund").call(arguments, run);

		assertThat(executed).isEqualTo("\"recorded 1 of O-T\"");
		assertThat(kind(replayed)).isEqualTo("replayed");
		assertThat(RefundDesk.refunds).hasValue(1);
		assertThat(this.jdbc.queryForList("SELECT order_ref FROM " + REFUNDS_TABLE, String.class))
			.containsExactlyInAnyOrder("O-T", "callers-own-work");
		assertThat(this.approvals.find(waitingKey("record_refund"))).hasValueSatisfying(
				(request) -> assertThat(request.entry().status()).isEqualTo(LedgerStatus.SUCCEEDED));
	}

	@Test
	void aRejectedTransactionalCallIsRefusedAndItsCallersTransactionStillCommits() {
		TransactionTemplate callers = callersTransaction();
		ToolCallback recordRefund = callback(0, "record_refund");
		ToolContext run = run("rejected-run");
		String arguments = "{\"order\":\"O-R\"}";
		assertThat(kind(recordRefund.call(arguments, run))).isEqualTo("awaiting_approval");

		this.approvals.reject(waiting("record_refund"), "ops", "refunded by cheque already");
		String refused = callers.execute((status) -> {
			this.jdbc.update("INSERT INTO " + REFUNDS_TABLE + " (order_ref) VALUES (?)", "callers-own-work");
			return recordRefund.call(arguments, run);
		});

		assertThat(kind(refused)).isEqualTo("refused_not_approved");
		assertThat(JSON.readTree(refused).get("message").asString()).contains("refunded by cheque already");
		assertThat(RefundDesk.refunds).hasValue(0);
		assertThat(this.jdbc.queryForList("SELECT order_ref FROM " + REFUNDS_TABLE, String.class))
			.containsExactly("callers-own-work");
	}

	/** The transaction of a caller of the tool, on the first instance, at the isolation transactional tools join. */
	private TransactionTemplate callersTransaction() {
		TransactionTemplate callers = new TransactionTemplate(this.instances.get(0).getBean(PlatformTransactionManager.class));
		callers.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
		return callers;
	}

	private IdempotencyKey waitingKey(String tool) {
		return this.jdbc.queryForObject("SELECT idempotency_key FROM " + LEDGER_TABLE + " WHERE tool = ?",
				(row, n) -> new IdempotencyKey(row.getString(1)), tool);
	}

}
