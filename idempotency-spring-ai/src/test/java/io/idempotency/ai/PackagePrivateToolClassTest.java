package io.idempotency.ai;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.test.InMemoryLedger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tool class as an application writes it, package-private with a public {@code @Tool} method: Spring AI
 * calls it on the bean, and the library calls it through the bean's class-based proxy on every path it
 * decorates (Spring AI's own callback, given the proxy, would fail: its object's class is public).
 */
class PackagePrivateToolClassTest {

	private static final JsonMapper JSON = new JsonMapper();

	private static final ToolContext RUN = new ToolContext(Map.of("runId", "r1", "userId", "rep-1"));

	private AnnotationConfigApplicationContext context;

	private Desk desk;

	static class Desk {

		/** Static: a class-based proxy has no state of its own. */
		static final AtomicInteger opened = new AtomicInteger();

		@Tool(name = "open_ticket", description = "Open a support ticket")
		@IdempotentTool(reconcile = "findTicket")
		public String openTicket(String accountName, ToolContext toolContext) {
			return "TCK-" + opened.incrementAndGet();
		}

		Reconciliation<String> findTicket(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools(proxyTargetClass = true)
	static class Tools {

		@Bean
		Desk desk() {
			return new Desk();
		}

	}

	@BeforeEach
	void start() {
		Desk.opened.set(0);
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(InMemoryLedger.class, () -> new InMemoryLedger());
		this.context.register(Tools.class);
		this.context.refresh();
		this.desk = this.context.getBean(Desk.class);
	}

	@AfterEach
	void stop() {
		this.context.close();
	}

	@Test
	void callbacksMadeByTheLibraryCallTheToolOnceAndReplayTheRepeat() {
		ToolCallback callback = IdempotentToolCallbacks.from(this.desk)[0];

		assertThat(callback.call("{\"accountName\":\"Acme\"}", RUN)).isEqualTo("\"TCK-1\"");
		assertThat(JSON.readTree(callback.call("{\"accountName\":\"Acme\"}", RUN)).get("kind").asString())
			.isEqualTo("replayed");
		assertThat(Desk.opened).hasValue(1);
	}

	@Test
	void springAisCallbacksDecoratedByTheLibraryCallTheTool() {
		ToolCallback decorated = IdempotentToolCallbacks.decorate(ToolCallbacks.from(this.desk))[0];
		ToolCallback provided = IdempotentToolCallbacks
			.decorate(MethodToolCallbackProvider.builder().toolObjects(this.desk).build())
			.getToolCallbacks()[0];

		assertThat(decorated.call("{\"accountName\":\"Acme\"}", RUN)).isEqualTo("\"TCK-1\"");
		assertThat(JSON.readTree(provided.call("{\"accountName\":\"Acme\"}", RUN)).get("kind").asString())
			.isEqualTo("replayed");
		assertThat(Desk.opened).hasValue(1);
	}

	/** A {@code ChatClient} built by hand, its {@code ToolCallingAdvisor} given the decorated manager. */
	@Test
	void theDecoratedToolCallingManagerCallsTheToolsOfAPrompt() {
		ToolCallingManager manager = IdempotentToolCallingManager.of(ToolCallingManager.builder().build());
		Prompt prompt = new Prompt(List.of(new UserMessage("Open a ticket for Acme")), ToolCallingChatOptions.builder()
			.toolCallbacks(ToolCallbacks.from(this.desk))
			.toolContext(RUN.getContext())
			.build());
		AssistantMessage calls = AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "open_ticket", "{\"accountName\":\"Acme\"}"),
					new AssistantMessage.ToolCall("c2", "function", "open_ticket", "{\"accountName\":\"Acme\"}")))
			.build();

		ToolExecutionResult result = manager.executeToolCalls(prompt, new ChatResponse(List.of(new Generation(calls))));

		ToolResponseMessage responses = (ToolResponseMessage) result.conversationHistory()
			.get(result.conversationHistory().size() - 1);
		assertThat(responses.getResponses().get(0).responseData()).isEqualTo("\"TCK-1\"");
		assertThat(JSON.readTree(responses.getResponses().get(1).responseData()).get("kind").asString())
			.isEqualTo("replayed");
		assertThat(Desk.opened).hasValue(1);
	}

}
