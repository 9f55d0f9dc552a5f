package io.idempotency.langchain4j;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.service.AiServices;
import io.idempotency.EnableIdempotentTools;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A package-private tool class with a public {@code @Tool} method, given to an AI service through
 * {@link IdempotentLangChain4jTools}: LangChain4j's own tool loop calls it through the bean's class-based
 * proxy, once per run.
 */
class PackagePrivateToolClassTest {

	private static final JsonMapper JSON = new JsonMapper();

	interface Assistant {

		String chat(String message);

	}

	static class Desk {

		/** Static: a class-based proxy has no state of its own. */
		static final AtomicInteger opened = new AtomicInteger();

		@Tool(name = "open_ticket", value = "Open a support ticket")
		@IdempotentTool(reconcile = "findTicket")
		public String openTicket(String account, String issue) {
			return "TCK-" + opened.incrementAndGet();
		}

		Reconciliation<String> findTicket(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Application {

		@Bean
		DataSource dataSource() {
			return TestDatabases.dataSource(TestDatabase.H2);
		}

		@Bean
		JdbcLedger ledger(DataSource dataSource) {
			LedgerSchema.create(dataSource, "tool_audit");
			return new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		}

		@Bean
		Desk desk() {
			return new Desk();
		}

	}

	@Test
	void aRepeatedCallInOneInvocationHasOneEffect() {
		Desk.opened.set(0);
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Application.class)) {
			LangChain4jToolLoopTest.ScriptedModel model = new LangChain4jToolLoopTest.ScriptedModel()
				.callsInOneTurn("open_ticket", "{\"account\":\"acme\",\"issue\":\"seal failure\"}",
						"{\"issue\":\"seal failure\",\"account\":\"acme\"}")
				.answers("One ticket is open.");
			Assistant assistant = AiServices.builder(Assistant.class)
				.chatModel(model)
				.tools(IdempotentLangChain4jTools.from(context.getBean(Desk.class)))
				.build();

			assertThat(assistant.chat("Open a ticket for acme")).isEqualTo("One ticket is open.");

			List<String> read = model.toolResultsRead();
			assertThat(read.get(0)).isEqualTo("TCK-1");
			assertThat(JSON.readTree(read.get(1)).get("kind").asString()).isEqualTo("replayed");
			assertThat(Desk.opened).hasValue(1);
		}
	}

}
