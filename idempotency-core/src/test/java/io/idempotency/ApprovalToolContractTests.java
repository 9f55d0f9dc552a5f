package io.idempotency;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.ApprovalRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.reconcile.Approvals;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tools that need a person's approval, through real beans, the real advice and a real ledger: the first call
 * waits and does nothing, its repeats are told the same, an approved call does its effect once when its run
 * calls it again, a rejected one never. A subclass names the database.
 */
abstract class ApprovalToolContractTests {

	static final String TABLE = "tool_audit_approval_test";

	private AnnotationConfigApplicationContext context;

	Quotes quotes;

	JdbcLedger ledger;

	Approvals approvals;

	abstract DataSource dataSource();

	/** Quotes whose sending is counted: over 1,000 units a person approves them first. */
	public static class Quotes {

		private final AtomicInteger sent = new AtomicInteger();

		private final AtomicInteger reviews = new AtomicInteger();

		/** How many quotes were sent (a method: a class-based proxy has no state of its own). */
		public int sent() {
			return this.sent.get();
		}

		/** How often the approval method was asked. */
		public int reviews() {
			return this.reviews.get();
		}

		@IdempotentTool(name = "send_quote", reconcile = "findQuote", approval = "quoteApproval")
		public String sendQuote(String customer, int quantity) {
			return "Q-" + this.sent.incrementAndGet() + " for " + quantity + " to " + customer;
		}

		Approval quoteApproval(int quantity, String customer) {
			this.reviews.incrementAndGet();
			if (customer.equals("unreadable")) {
				throw new IllegalStateException("the customer's record cannot be read");
			}
			return (quantity > 1000) ? Approval.required("a quote over 1,000 units (" + quantity + ")")
					: Approval.notRequired();
		}

		@IdempotentTool(name = "refund_order", reconcile = "findRefund", requiresApproval = true)
		public ToolResult<String> refundOrder(String order) {
			return ToolResult.of("refunded " + order + " #" + this.sent.incrementAndGet());
		}

		Reconciliation<String> findQuote(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		Reconciliation<String> findRefund(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Tools {

		@Bean
		JdbcLedger ledger(DataSource dataSource) {
			return new JdbcLedger(dataSource, TABLE, Redaction.defaults());
		}

		@Bean
		Quotes quotes() {
			return new Quotes();
		}

	}

	@BeforeEach
	void start() {
		DataSource dataSource = dataSource();
		LedgerSchema.drop(dataSource, TABLE);
		LedgerSchema.create(dataSource, TABLE);
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
		this.context.register(Tools.class);
		this.context.refresh();
		this.quotes = this.context.getBean(Quotes.class);
		this.ledger = this.context.getBean(JdbcLedger.class);
		this.approvals = new Approvals(this.ledger.approvals(), Duration.ofHours(1), (event) -> {
		});
	}

	@AfterEach
	void stop() {
		if (this.context != null) {
			this.context.close();
		}
		LedgerSchema.drop(dataSource(), TABLE);
	}

	private <T> T inRun(String runId, java.util.function.Supplier<T> call) {
		return RunContext.supply(new Run(runId, "user-1"), call);
	}

	private IdempotencyKey awaitingKey() {
		List<ApprovalRequest> awaiting = this.approvals.awaiting(null, 0, 10);
		assertThat(awaiting).hasSize(1);
		return awaiting.get(0).entry().key();
	}

	@Test
	void aSmallQuoteIsSentAtOnceAndALargeOneWaitsForApprovalDoingNothing() {
		assertThat(inRun("r1", () -> this.quotes.sendQuote("Henderson", 10))).isEqualTo("Q-1 for 10 to Henderson");

		for (int i = 0; i < 3; i++) {
			assertThatExceptionOfType(AwaitingApprovalException.class)
				.isThrownBy(() -> inRun("r1", () -> this.quotes.sendQuote("Henderson", 5000)))
				.satisfies((ex) -> {
					assertThat(ex.answer()).isEqualTo(Answer.AWAITING_APPROVAL);
					assertThat(ex.reason()).isEqualTo("a quote over 1,000 units (5000)");
					assertThat(ex.getMessage()).contains("a person must approve this action")
						.contains("a quote over 1,000 units (5000)")
						.contains("Do not call it again");
				});
		}
		assertThat(this.quotes.sent()).isEqualTo(1);
		assertThat(this.approvals.awaiting(null, 0, 10)).singleElement()
			.satisfies((call) -> assertThat(call.entry().arguments()).contains("5000"));
	}

	@Test
	void anApprovedQuoteIsSentOnceWhenItsRunCallsItAgain() {
		assertThatExceptionOfType(AwaitingApprovalException.class)
			.isThrownBy(() -> inRun("r1", () -> this.quotes.sendQuote("Henderson", 5000)));

		this.approvals.approve(awaitingKey(), "ops@example.com", "the customer confirmed");

		String sent = inRun("r1", () -> this.quotes.sendQuote("Henderson", 5000));
		assertThat(sent).isEqualTo("Q-1 for 5000 to Henderson");
		assertThat(inRun("r1", () -> this.quotes.sendQuote("Henderson", 5000))).as("replayed").isEqualTo(sent);
		assertThat(this.quotes.sent()).isEqualTo(1);
		assertThatExceptionOfType(AwaitingApprovalException.class).as("other arguments are another action")
			.isThrownBy(() -> inRun("r1", () -> this.quotes.sendQuote("Henderson", 5001)));
		assertThatExceptionOfType(AwaitingApprovalException.class).as("another run is another action")
			.isThrownBy(() -> inRun("r2", () -> this.quotes.sendQuote("Henderson", 5000)));
		assertThat(this.quotes.sent()).isEqualTo(1);
	}

	@Test
	void aRejectedQuoteIsRefusedWithThePersonsReasonAndNeverSent() {
		assertThatExceptionOfType(AwaitingApprovalException.class)
			.isThrownBy(() -> inRun("r1", () -> this.quotes.sendQuote("Henderson", 5000)));

		this.approvals.reject(awaitingKey(), "ops@example.com", "the customer's credit is on hold");

		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(NotApprovedException.class)
				.isThrownBy(() -> inRun("r1", () -> this.quotes.sendQuote("Henderson", 5000)))
				.satisfies((ex) -> {
					assertThat(ex.answer()).isEqualTo(Answer.REFUSED_NOT_APPROVED);
					assertThat(ex.expired()).isFalse();
					assertThat(ex.getMessage()).contains("a person did not approve this action")
						.contains("the customer's credit is on hold")
						.contains("Do not retry it");
				});
		}
		assertThat(this.quotes.sent()).isEqualTo(0);
	}

	@Test
	void aToolThatAnswersWithToolResultIsToldItAwaitsApprovalInOne() {
		ToolResult<String> first = inRun("r1", () -> this.quotes.refundOrder("O-7"));

		assertThat(first.kind()).isEqualTo(Answer.AWAITING_APPROVAL);
		assertThat(first.ok()).isFalse();
		assertThat(first.replayed()).isFalse();
		assertThat(first.message()).contains("(every call of refund_order needs a person's approval)");
		this.approvals.approve(awaitingKey(), "ops", "fine");
		ToolResult<String> executed = inRun("r1", () -> this.quotes.refundOrder("O-7"));
		assertThat(executed.kind()).isEqualTo(Answer.EXECUTED);
		assertThat(executed.data()).isEqualTo("refunded O-7 #1");
		assertThat(inRun("r1", () -> this.quotes.refundOrder("O-7")).kind()).isEqualTo(Answer.REPLAYED);
	}

	@Test
	void anApprovalMethodThatThrowsFailsTheCallAndClaimsNothing() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> inRun("r1", () -> this.quotes.sendQuote("unreadable", 5000)))
			.withMessage("the customer's record cannot be read");

		assertThat(new JdbcTemplate(dataSource()).queryForObject("SELECT COUNT(*) FROM " + TABLE, Integer.class)).isZero();
		assertThat(this.quotes.sent()).isEqualTo(0);
	}

	@Test
	void outsideARunACallThatNeedsApprovalIsRefusedEvenWhereCallsWithoutARunExecute() {
		this.context.getBean(io.idempotency.advice.IdempotentToolAdvisor.class)
			.setMissingRunPolicy(MissingRunPolicy.EXECUTE_WITHOUT_DEDUPLICATION);

		// Its approval method is asked within a run only: every call of a tool that may need approval is refused.
		assertThatExceptionOfType(MissingRunException.class).isThrownBy(() -> this.quotes.sendQuote("Henderson", 10));
		assertThatExceptionOfType(MissingRunException.class).isThrownBy(() -> this.quotes.sendQuote("Henderson", 5000));
		assertThatExceptionOfType(MissingRunException.class).isThrownBy(() -> this.quotes.refundOrder("O-7"));
		assertThat(this.quotes.sent()).isZero();
		assertThat(this.quotes.reviews()).isZero();
	}

	@Test
	void theApprovalMethodIsAskedOncePerCallWithTheCallsArguments() {
		inRun("r1", () -> this.quotes.sendQuote("Henderson", 10));
		inRun("r1", () -> this.quotes.sendQuote("Henderson", 10));

		assertThat(this.quotes.reviews()).isEqualTo(2);
	}

}
