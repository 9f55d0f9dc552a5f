package io.idempotency.ai;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.IdempotentTool;
import io.idempotency.PreviousAttemptFailedException;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An MCP tool written by hand whose handler calls an idempotent tool that refuses it (a repeat of a failed
 * call): the hand-written tool ran for the first time and failed as its own, so the client is not told it was
 * a repeat, on synchronous and asynchronous servers.
 */
class McpNestedRefusalTest {

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	public static class Payments {

		final AtomicInteger attempts = new AtomicInteger();

		@IdempotentTool(name = "charge_card", reconcile = "findCharge")
		public String chargeCard(String order) {
			this.attempts.incrementAndGet();
			throw new IllegalArgumentException("card declined for " + order);
		}

		public int attempted() {
			return this.attempts.get();
		}

		Reconciliation<String> findCharge(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	private AnnotationConfigApplicationContext context;

	private Payments payments;

	private final IdempotentFunction<CallToolResult> checkout = IdempotentFunction
		.builder("checkout", CallToolResult.class)
		.reconcile((key, arguments) -> Reconciliation.notFound())
		.build();

	private final McpSchema.Tool tool = McpSchema.Tool.builder()
		.name("checkout")
		.inputSchema(Map.of("type", "object"))
		.build();

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> new InMemoryLedger());
		this.context.registerBean(Payments.class, () -> new Payments());
		this.context.register(Enabled.class);
		this.context.refresh();
		this.payments = this.context.getBean(Payments.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	private CallToolResult checkedOut(CallToolRequest request) {
		String charged = this.payments.chargeCard((String) request.arguments().get("order"));
		return CallToolResult.builder().content(List.of(McpSchema.TextContent.builder(charged).build())).build();
	}

	private void chargeFailsOnce(String runId) {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> RunContext.run(new Run(runId, "ada"), () -> this.payments.chargeCard("O-1")));
	}

	private static CallToolRequest request() {
		return new CallToolRequest("checkout", Map.of("order", "O-1"), null);
	}

	@Test
	void onASynchronousServerTheHandlersFailureIsItsOwn() {
		McpServerFeatures.SyncToolSpecification decorated = IdempotentMcpTools.idempotent(
				McpServerFeatures.SyncToolSpecification.builder()
					.tool(this.tool)
					.callHandler((exchange, request) -> checkedOut(request))
					.build(),
				this.checkout, this.context.getBean(IdempotentCalls.class));
		chargeFailsOnce("sync-run");

		assertThatExceptionOfType(PreviousAttemptFailedException.class).as("the tool's own failure, thrown as it is")
			.isThrownBy(() -> RunContext.supply(new Run("sync-run", "ada"),
					() -> decorated.callHandler().apply(null, request())));
		assertThat(this.payments.attempted()).isEqualTo(1);
	}

	@Test
	void onAnAsynchronousServerTheHandlersFailureIsItsOwn() {
		McpServerFeatures.AsyncToolSpecification decorated = IdempotentMcpTools.idempotent(
				McpServerFeatures.AsyncToolSpecification.builder()
					.tool(this.tool)
					.callHandler((exchange, request) -> Mono.fromCallable(() -> checkedOut(request))
						.subscribeOn(Schedulers.boundedElastic()))
					.build(),
				this.checkout, this.context.getBean(IdempotentCalls.class));
		chargeFailsOnce("async-run");

		// The run reaches the handler's thread as the starter has it reach: with automatic context propagation.
		Hooks.enableAutomaticContextPropagation();
		try {
			assertThatExceptionOfType(PreviousAttemptFailedException.class).as("the tool's own failure, as it is")
				.isThrownBy(() -> RunContext.supply(new Run("async-run", "ada"),
						() -> decorated.callHandler().apply(null, request()).block(java.time.Duration.ofSeconds(30))));
		}
		finally {
			Hooks.disableAutomaticContextPropagation();
		}
		assertThat(this.payments.attempted()).isEqualTo(1);
	}

}
