package io.idempotency.autoconfigure.langchain4j;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.spring.AiService;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderResult;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * LangChain4j's Spring Boot integration: an {@code @AiService} wired automatically with the application's
 * {@code @Tool} beans and its tool provider, driven by a scripted chat model through LangChain4j's own tool
 * loop, with the starter's ledger on H2.
 */
@SpringBootTest(classes = AiServiceToolLoopTest.Application.class,
		properties = { "spring.main.banner-mode=off", "spring.datasource.url=jdbc:h2:mem:ai-service;DB_CLOSE_DELAY=-1" })
public class AiServiceToolLoopTest {

	private static final JsonMapper JSON = new JsonMapper();

	/** Public, as LangChain4j's code generated ahead of time for it names it ({@link AiServiceAheadOfTimeTest}). */
	@AiService
	public interface Assistant {

		String chat(String message);

	}

	@Autowired
	Assistant assistant;

	@Autowired
	ScriptedModel model;

	@Autowired
	TicketTools tickets;

	@Autowired
	JdbcTemplate jdbc;

	@BeforeEach
	void forget() {
		this.model.requests.clear();
		this.model.script.clear();
	}

	@Test
	void aRepeatedCallInOneInvocationHasOneEffectAndTheModelReadsTheNoticeANewInvocationIsANewRun() {
		int before = this.tickets.opened();
		this.model.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}")
			.callsTool("open_ticket", "{\"issue\":\"seal failure\",\"account\":\"acme\"}")
			.answers("One ticket is open.");

		assertThat(this.assistant.chat("Open a ticket for acme: the pump seal failed")).isEqualTo("One ticket is open.");

		assertThat(this.tickets.opened()).isEqualTo(before + 1);
		List<String> read = this.model.toolResultsRead();
		assertThat(read).hasSize(2);
		assertThat(read.get(0)).isEqualTo("TCK-" + (before + 1));
		JsonNode notice = JSON.readTree(read.get(1));
		assertThat(notice.get("kind").asString()).isEqualTo("replayed");
		assertThat(notice.get("result").asString()).isEqualTo("TCK-" + (before + 1));

		this.model.callsTool("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}").answers("Another.");
		this.assistant.chat("Open a ticket for acme: the pump seal failed");
		assertThat(this.tickets.opened()).as("a new invocation is a new run").isEqualTo(before + 2);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(DISTINCT run_id) FROM tool_audit WHERE tool = 'open_ticket'",
				Integer.class)).isEqualTo(2);
	}

	@Test
	void theApplicationsOtherToolsAndItsToolProviderStayAvailable() {
		this.model.callsTool("weather", "{\"city\":\"Leeds\"}")
			.callsTool("lookup", "{\"sku\":\"PUMP-3\"}")
			.answers("Done.");

		this.assistant.chat("What is the weather, and what is PUMP-3?");

		assertThat(this.model.toolResultsRead()).containsExactly("rain in Leeds", "a pump");
		assertThat(this.model.requests.get(0).toolSpecifications()).extracting(ToolSpecification::name)
			.containsExactlyInAnyOrder("open_ticket", "weather", "lookup");
	}

	/** Tools registered by class, as component scanning registers them: how LangChain4j finds tool beans. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ TicketTools.class, WeatherTools.class })
	static class Application {

		@Bean
		ScriptedModel chatModel() {
			return new ScriptedModel();
		}

		/** A provider of its own, such as an MCP client's: its tools reach the model beside the beans'. */
		@Bean
		ToolProvider catalogue() {
			return (request) -> ToolProviderResult.builder()
				.add(ToolSpecification.builder().name("lookup").description("Look a SKU up").build(),
						(call, memoryId) -> "a pump")
				.build();
		}

	}

	public static class TicketTools {

		int opened;

		@Tool(name = "open_ticket", value = "Open a support ticket")
		@IdempotentTool(reconcile = "findTicket")
		public String openTicket(String account, String issue) {
			return "TCK-" + (++this.opened);
		}

		public int opened() {
			return this.opened;
		}

		Reconciliation<String> findTicket(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	public static class WeatherTools {

		@Tool(name = "weather", value = "The weather in a city")
		public String weather(String city) {
			return "rain in " + city;
		}

	}

	/** A chat model that answers from a script and keeps every request it was sent. */
	static class ScriptedModel implements ChatModel {

		final Deque<AiMessage> script = new ArrayDeque<>();

		final List<ChatRequest> requests = new ArrayList<>();

		ScriptedModel callsTool(String tool, String argumentsJson) {
			this.script.add(AiMessage.from(ToolExecutionRequest.builder()
				.id("call-" + this.script.size())
				.name(tool)
				.arguments(argumentsJson)
				.build()));
			return this;
		}

		ScriptedModel answers(String text) {
			this.script.add(AiMessage.from(text));
			return this;
		}

		@Override
		public ChatResponse doChat(ChatRequest request) {
			this.requests.add(request);
			return ChatResponse.builder().aiMessage(this.script.removeFirst()).build();
		}

		List<String> toolResultsRead() {
			List<String> read = new ArrayList<>();
			for (ChatMessage message : this.requests.get(this.requests.size() - 1).messages()) {
				if (message instanceof ToolExecutionResultMessage result) {
					read.add(result.text());
				}
			}
			return read;
		}

	}

}
