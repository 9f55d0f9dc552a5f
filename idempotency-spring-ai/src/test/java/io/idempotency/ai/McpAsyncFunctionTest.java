package io.idempotency.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.IdempotentCalls;
import io.idempotency.IdempotentFunction;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.Reconciliation;
import io.idempotency.test.InMemoryLedger;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A hand-written MCP tool of an asynchronous server, made idempotent, on the in-memory ledger: claimed when
 * subscribed, recorded when its handler's {@code Mono} completes, whatever its subscriber does meanwhile.
 */
class McpAsyncFunctionTest {

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Enabled {

	}

	private final InMemoryLedger ledger = new InMemoryLedger();

	private AnnotationConfigApplicationContext context;

	@BeforeEach
	void start() {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> this.ledger);
		this.context.register(Enabled.class);
		this.context.refresh();
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void aCallCancelledWhileItRunsRunsToItsOutcomeAndARepeatReadsItWithoutRunningAgain() {
		CountDownLatch providerAnswers = new CountDownLatch(1);
		AtomicInteger runs = new AtomicInteger();
		McpServerFeatures.AsyncToolSpecification handWritten = McpServerFeatures.AsyncToolSpecification.builder()
			.tool(McpSchema.Tool.builder().name("hold_refund").inputSchema(Map.of("type", "object")).build())
			.callHandler((exchange, request) -> Mono.fromCallable(() -> {
				runs.incrementAndGet();
				providerAnswers.await();
				return CallToolResult.builder().content(List.of(McpSchema.TextContent.builder("refunded").build())).build();
			}))
			.build();
		IdempotentFunction<CallToolResult> holdRefund = IdempotentFunction.builder("hold_refund", CallToolResult.class)
			.reconcile((key, arguments) -> Reconciliation.notFound())
			.build();
		McpServerFeatures.AsyncToolSpecification tool = IdempotentMcpTools.idempotent(handWritten, holdRefund,
				this.context.getBean(IdempotentCalls.class));
		CallToolRequest request = new CallToolRequest("hold_refund", Map.of("order", "H-1"), null);
		Run run = new Run("held-run", "ada");

		Disposable first = RunContext.supply(run, () -> tool.callHandler().apply(null, request).subscribe());
		await().atMost(Duration.ofSeconds(30)).until(() -> runs.get() == 1);
		first.dispose();
		providerAnswers.countDown();

		await().atMost(Duration.ofSeconds(30))
			.until(() -> this.ledger.entries().get(0).status(), LedgerStatus.SUCCEEDED::equals);
		CallToolResult repeat = RunContext.supply(run, () -> tool.callHandler().apply(null, request).block());
		assertThat(((McpSchema.TextContent) repeat.content().get(0)).text()).isEqualTo("refunded");
		assertThat(runs).hasValue(1);
		assertThat(tool.tool().annotations().idempotentHint()).isTrue();
	}

}
