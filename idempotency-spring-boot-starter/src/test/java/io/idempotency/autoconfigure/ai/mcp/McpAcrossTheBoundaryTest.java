package io.idempotency.autoconfigure.ai.mcp;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.idempotency.ai.RunMetaConverter;
import io.idempotency.autoconfigure.ai.SpringAiToolLoopTest.ScriptedModel;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.mcp.SyncMcpToolCallbackProvider;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An agent on this library, with Spring AI's MCP client as the starters configure it, calls a tool of an
 * MCP server on this library: the client sends the run of each prompt in {@code _meta}, so the server
 * deduplicates a repeat within the prompt (one effect, the notice reaches the model) and a new prompt is a
 * new action.
 */
@SpringBootTest(classes = McpServerRoundTripTest.Server.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.banner-mode=off", "spring.ai.mcp.server.protocol=STREAMABLE",
				"spring.ai.mcp.server.name=tickets", "spring.ai.mcp.client.enabled=false",
				"spring.datasource.url=jdbc:h2:mem:mcp-boundary-server;DB_CLOSE_DELAY=-1" })
class McpAcrossTheBoundaryTest {

	private static final JsonMapper JSON = new JsonMapper();

	@LocalServerPort
	int port;

	@Autowired
	JdbcTemplate serverJdbc;

	/** The agent: a ChatClient with the remote server's tools, as Spring AI's MCP client provides them. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Agent {

		static ScriptedModel model;

		@Bean
		ChatModel chatModel() {
			return model;
		}

	}

	@Test
	void aRepeatWithinAPromptHasOneEffectOnTheRemoteServerAndANewPromptIsANewAction() {
		ScriptedModel model = new ScriptedModel();
		Agent.model = model;
		try (ConfigurableApplicationContext agent = new SpringApplicationBuilder(Agent.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.ai.mcp.server.enabled=false",
					"spring.datasource.url=jdbc:h2:mem:mcp-boundary-agent;DB_CLOSE_DELAY=-1",
					"spring.ai.mcp.client.streamable-http.connections.tickets.url=http://127.0.0.1:" + this.port,
					"spring.ai.mcp.client.request-timeout=30s")
			.run()) {
			assertThat(agent.getBean(ToolContextToMcpMetaConverter.class)).isInstanceOf(RunMetaConverter.class);
			ToolCallback[] remote = agent.getBean(SyncMcpToolCallbackProvider.class).getToolCallbacks();
			String openTicket = Arrays.stream(remote)
				.map((callback) -> callback.getToolDefinition().name())
				.filter((name) -> name.endsWith("open_ticket"))
				.findFirst()
				.orElseThrow();
			int before = tickets();

			model.callsTool(openTicket, "{\"subject\":\"seal failure\"}")
				.callsTool(openTicket, "{\"subject\":\"seal failure\"}")
				.answers("One ticket is open.");
			assertThat(ask(agent, remote, "prompt-1")).isEqualTo("One ticket is open.");

			assertThat(tickets()).isEqualTo(before + 1);
			List<ToolResponseMessage.ToolResponse> read = model.toolResponsesRead();
			assertThat(read.get(0).responseData()).contains("TCK-").doesNotContain("replayed");
			// Spring AI's MCP client hands the model the result's content: the server's notice is its text.
			JsonNode notice = JSON.readTree(JSON.readTree(read.get(1).responseData()).get(0).get("text").asString());
			assertThat(notice.get("kind").asString()).isEqualTo("replayed");
			assertThat(notice.get("message").asString()).contains("Nothing was done again");
			assertThat(notice.get("result").asString()).isEqualTo("TCK-" + (before + 1));

			model.callsTool(openTicket, "{\"subject\":\"seal failure\"}").answers("Another ticket is open.");
			ask(agent, remote, "prompt-2");
			assertThat(tickets()).as("a new prompt is a new run").isEqualTo(before + 2);
			assertThat(this.serverJdbc.queryForList("SELECT DISTINCT run_id FROM tool_audit WHERE tool = 'open_ticket'"
					+ " AND run_id LIKE 'prompt-%' ORDER BY run_id", String.class)).containsExactly("prompt-1", "prompt-2");
		}
	}

	private static String ask(ConfigurableApplicationContext agent, ToolCallback[] remote, String runId) {
		return agent.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("Open a ticket: the pump seal failed")
			.toolCallbacks(remote)
			.toolContext(Map.of("runId", runId))
			.call()
			.content();
	}

	private int tickets() {
		return this.serverJdbc.queryForObject("SELECT COUNT(*) FROM tickets", Integer.class);
	}

}
