package io.idempotency.autoconfigure.ai;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import javax.sql.DataSource;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.Reconciliation;
import io.idempotency.ai.IdempotentToolCallbacks;
import io.idempotency.autoconfigure.IdempotencyLedgerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyApprovalsAutoConfiguration;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.autoconfigure.IdempotentToolsAutoConfiguration;
import io.idempotency.autoconfigure.ai.SpringAiToolLoopTest.ScriptedModel;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.function.FunctionToolCallback;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A tool that is not an annotated method, a {@code FunctionToolCallback} made idempotent with
 * {@link IdempotentToolCallbacks#idempotent}, in Spring AI's real tool loop (the {@code ChatClient} Spring AI
 * auto-configures) driven by a scripted model.
 */
class FunctionToolCallbackLoopTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
				IdempotencyLedgerAutoConfiguration.class, IdempotentToolsAutoConfiguration.class,
				IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class, IdempotencySpringAiAutoConfiguration.class,
				ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class))
		.withPropertyValues("idempotency.reconciler.enabled=false")
		.withUserConfiguration(Tickets.class);

	public record OpenTicket(String account, String issue) {
	}

	public record Ticket(long id, String account, String issue) {
	}

	/** Tickets kept in a table; opening one can be made to time out after its insert. */
	static class TicketDesk implements Function<OpenTicket, Ticket> {

		final JdbcTemplate jdbc;

		final AtomicBoolean timeOutAfterInsert = new AtomicBoolean();

		TicketDesk(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
			this.jdbc.execute("CREATE TABLE IF NOT EXISTS tickets (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
					+ " account VARCHAR(50), issue VARCHAR(200))");
			this.jdbc.execute("DELETE FROM tickets");
		}

		@Override
		public Ticket apply(OpenTicket request) {
			this.jdbc.update("INSERT INTO tickets (account, issue) VALUES (?, ?)", request.account(), request.issue());
			if (this.timeOutAfterInsert.get()) {
				throw new UncheckedIOException(new SocketTimeoutException("ticket service did not answer"));
			}
			return find(request.account(), request.issue());
		}

		Ticket find(String account, String issue) {
			List<Ticket> found = this.jdbc.query("SELECT id, account, issue FROM tickets WHERE account = ? AND issue = ?",
					(row, i) -> new Ticket(row.getLong(1), row.getString(2), row.getString(3)), account, issue);
			return found.isEmpty() ? null : found.get(0);
		}

		int tickets() {
			return this.jdbc.queryForObject("SELECT COUNT(*) FROM tickets", Integer.class);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Tickets {

		@Bean
		TicketDesk ticketDesk(DataSource dataSource) {
			return new TicketDesk(dataSource);
		}

		@Bean
		ToolCallback openTicket(TicketDesk desk, IdempotentCalls calls) {
			ToolCallback callback = FunctionToolCallback.builder("open_ticket", desk)
				.description("Open a support ticket")
				.inputType(OpenTicket.class)
				.build();
			IdempotentFunction<String> function = IdempotentFunction.builder("open_ticket", String.class)
				.reconcile((key, arguments) -> {
					Ticket found = desk.find((String) arguments.get("account"), (String) arguments.get("issue"));
					return (found == null) ? Reconciliation.notFound()
							: Reconciliation.found("{\"id\":" + found.id() + ",\"account\":\"" + found.account()
									+ "\",\"issue\":\"" + found.issue() + "\"}");
				})
				.build();
			return IdempotentToolCallbacks.idempotent(callback, function, calls);
		}

	}

	private static String status(TicketDesk desk) {
		return desk.jdbc.queryForObject("SELECT status FROM tool_audit WHERE tool = 'open_ticket'", String.class);
	}

	private static String ask(ApplicationContext context, ScriptedModel model, String runId) {
		return context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("Open a ticket for acme: the pump seal failed")
			.toolCallbacks(context.getBean("openTicket", ToolCallback.class))
			.toolContext(Map.of("runId", runId, "userId", "rep-1"))
			.call()
			.content();
	}

	@Test
	void aRepeatedCallInOneRunOpensOneTicketAndTheModelReadsTheNoticeANewRunOpensAnother() {
		ScriptedModel model = new ScriptedModel()
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}")
			.callsTool("open_ticket", "{\"issue\":\"seal failure\",\"account\":\"acme\"}")
			.answers("One ticket is open.")
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}")
			.answers("Another ticket is open.");
		this.runner.withBean(ChatModel.class, () -> model).run((context) -> {
			TicketDesk desk = context.getBean(TicketDesk.class);

			assertThat(ask(context, model, "monday")).isEqualTo("One ticket is open.");
			assertThat(desk.tickets()).isEqualTo(1);
			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read.get(0).responseData()).doesNotContain("replayed").contains("\"account\":\"acme\"");
			assertThat(read.get(1).responseData()).contains("\"replayed\":true")
				.contains("\"kind\":\"replayed\"")
				.contains("\"result\":" + read.get(0).responseData());

			assertThat(ask(context, model, "tuesday")).isEqualTo("Another ticket is open.");
			assertThat(desk.tickets()).as("a new run is a new action").isEqualTo(2);
			assertThat(model.toolResponsesRead().get(2).responseData()).doesNotContain("replayed");
		});
	}

	@Test
	void aCallThatTimedOutAfterItsEffectIsReconciledByTheFunctionAndARepeatReadsTheTicketFound() {
		ScriptedModel model = new ScriptedModel()
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"valve leak\"}")
			.answers("The ticket service timed out.")
			.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"valve leak\"}")
			.answers("The ticket is open.");
		this.runner.withBean(ChatModel.class, () -> model)
			.run((context) -> {
				TicketDesk desk = context.getBean(TicketDesk.class);
				desk.timeOutAfterInsert.set(true);
				assertThat(ask(context, model, "wednesday")).isEqualTo("The ticket service timed out.");
				assertThat(model.toolResponsesRead().get(0).responseData()).contains("ticket service did not answer");

				assertThat(status(desk)).isEqualTo("unknown");

				// A reconciler, once the call has ended, asks the function, which finds the ticket.
				Reconciler reconciler = new Reconciler(context.getBean(JdbcLedger.class),
						context.getBean(IdempotentToolRegistry.class), new JsonMapper(),
						new ReconcilerSettings(Duration.ofMillis(1), Map.of(), 10, Duration.ofMinutes(1),
								Duration.ofSeconds(1), Duration.ofSeconds(1), 3));
				await().atMost(Duration.ofSeconds(30)).until(() -> reconciler.reconcile().succeeded() == 1);
				assertThat(status(desk)).isEqualTo("succeeded");
				desk.timeOutAfterInsert.set(false);
				ask(context, model, "wednesday");

				assertThat(desk.tickets()).as("the reconciled call is not run again").isEqualTo(1);
				Ticket opened = desk.find("acme", "valve leak");
				assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"replayed\":true")
					.contains("\"result\":{\"id\":" + opened.id() + ",\"account\":\"acme\"");
			});
	}

}
