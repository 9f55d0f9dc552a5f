package io.idempotency.autoconfigure;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.idempotency.Answer;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.autoconfigure.ai.IdempotencySpringAiAutoConfiguration;
import io.idempotency.autoconfigure.ai.SpringAiToolLoopTest.ScriptedModel;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.key.IdempotencyKeys;
import io.idempotency.ledger.ClaimRequest;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.aot.AotDetector;
import org.springframework.aot.generate.GeneratedFiles.Kind;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.SpringProperties;
import org.springframework.core.env.Environment;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application on the starter processed by Spring AOT, as a native image build or
 * {@code spring-boot:process-aot} processes it, and run in AOT mode on the JVM from its generated
 * initializer, as {@code SpringApplication} runs it with {@code -Dspring.aot.enabled=true}: its tool's proxy
 * is generated at build time, a repeat in the run replays (called directly, and by a model in Spring AI's
 * tool loop), and the reconciler finds the reconcile method, as without AOT; the hints a native image needs
 * are registered. Forked class loader: the generated code reaches
 * package-private classes, which it must share a class loader with.
 */
@CompileWithForkedClassLoader
class AheadOfTimeApplicationTest {

	private static final String TABLE = "tool_audit_aot_test";

	private static final QuoteRequest REQUEST = new QuoteRequest("Henderson Industrial", "SKU-4411", 200,
			LocalDate.of(2026, 12, 18));

	public record QuoteRequest(String account, String sku, int quantity, LocalDate deliverBy) {
	}

	public record Quote(String id, String account, BigDecimal total) {
	}

	/** A failure after which a quote may have been sent: named in {@code idempotency.unknown-exceptions}. */
	public static class QuoteServiceTimeout extends RuntimeException {

		private static final long serialVersionUID = 1L;

	}

	/**
	 * Two tools: one named by Spring AI's {@code @Tool}, called directly and by a model through Spring AI's tool
	 * loop, and one whose call crashes and is reconciled.
	 */
	public static class QuoteDesk {

		private final AtomicInteger drafted = new AtomicInteger();

		private final AtomicInteger sent = new AtomicInteger();

		private final AtomicInteger reconciled = new AtomicInteger();

		/** How often each method ran: {@code draft}, {@code send}, {@code findSent}. */
		public int[] counts() {
			return new int[] { this.drafted.get(), this.sent.get(), this.reconciled.get() };
		}

		@Tool(name = "draft_quote", description = "Drafts a quote for an account")
		@IdempotentTool(reconcile = "findDraft")
		public ToolResult<Quote> draft(QuoteRequest request, ToolContext toolContext) {
			return ToolResult.of(new Quote("Q-" + this.drafted.incrementAndGet(), request.account(),
					new BigDecimal("4180.00")));
		}

		Reconciliation<Quote> findDraft(IdempotencyKey key, QuoteRequest request) {
			return Reconciliation.notFound();
		}

		@IdempotentTool(name = "send_quote", reconcile = "findSent")
		public Quote send(String quoteId) {
			this.sent.incrementAndGet();
			return new Quote(quoteId, "sent", BigDecimal.ZERO);
		}

		Reconciliation<Quote> findSent(String quoteId) {
			this.reconciled.incrementAndGet();
			return Reconciliation.found(new Quote(quoteId, "found by reconcile", new BigDecimal("4180.00")));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ AopAutoConfiguration.class, JacksonAutoConfiguration.class,
			DataSourceTransactionManagerAutoConfiguration.class, IdempotencyLedgerAutoConfiguration.class,
			IdempotentToolsAutoConfiguration.class, IdempotencyApprovalsAutoConfiguration.class, IdempotencyReconcilerAutoConfiguration.class,
			IdempotencySpringAiAutoConfiguration.class, ToolCallingAutoConfiguration.class,
			ChatClientAutoConfiguration.class })
	static class QuoteApplication {

		@Bean
		DataSource dataSource(Environment environment) {
			return new DelegatingDataSource(database(environment.getRequiredProperty("test.database")));
		}

		@Bean
		QuoteDesk quoteDesk() {
			return new QuoteDesk();
		}

		@Bean
		ScriptedModel chatModel() {
			return new ScriptedModel();
		}

	}

	private static DataSource database(String name) {
		return TestDatabases.dataSource(TestDatabase.valueOf(name));
	}

	/**
	 * Registers this class loader's JDBC drivers: {@code DriverManager} loads drivers once per JVM, and hands a
	 * caller only those of its own class loader, so the forked class loader's drivers register themselves when
	 * their classes initialise.
	 */
	private static void registerDrivers() throws ClassNotFoundException {
		for (String driver : new String[] { "org.postgresql.Driver", "org.mariadb.jdbc.Driver", "org.h2.Driver" }) {
			Class.forName(driver, true, AheadOfTimeApplicationTest.class.getClassLoader());
		}
	}

	/** The application's settings; the reconciler treats send_quote's calls as stale after 2 ms. */
	private static TestPropertyValues properties(TestDatabase database) {
		return TestPropertyValues.of("test.database=" + database.name(), "idempotency.jdbc.table-name=" + TABLE,
				"idempotency.jdbc.initialize-schema=always", "idempotency.reconciler.interval=10ms",
				"idempotency.reconciler.stale-after-by-tool.send_quote=2ms", "idempotency.heartbeat.interval=1ms",
				"idempotency.unknown-exceptions=" + QuoteServiceTimeout.class.getCanonicalName());
	}

	@Test
	void anApplicationProcessedAheadOfTimeHasItsHintsAndReplaysAndReconcilesAsWithout() throws Exception {
		registerDrivers();
		TestGenerationContext generation = new TestGenerationContext(QuoteApplication.class);
		AnnotationConfigApplicationContext processed = new AnnotationConfigApplicationContext();
		processed.register(QuoteApplication.class);
		properties(TestDatabase.H2).applyTo(processed);
		ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(processed, generation);
		generation.writeGeneratedContent();
		assertHintsOfTheTools(generation);

		TestCompiler.forSystem().with(generation).compile((compiled) -> {
			@SuppressWarnings("unchecked")
			ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
				.getInstance(ApplicationContextInitializer.class, initializerName.reflectionName());
			for (TestDatabase database : TestDatabase.values()) {
				String proxy = inAotMode(() -> replaysAndReconciles(() -> {
					GenericApplicationContext context = new GenericApplicationContext();
					properties(database).applyTo(context);
					initializer.initialize(context);
					context.refresh();
					return context;
				}, database));
				assertThat(generation.getGeneratedFiles().getGeneratedFile(Kind.CLASS, proxy.replace('.', '/') + ".class"))
					.as("the tool's proxy class, generated at build time").isNotNull();
			}
		});
		for (TestDatabase database : TestDatabase.values()) {
			replaysAndReconciles(() -> {
				AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
				context.register(QuoteApplication.class);
				properties(database).applyTo(context);
				context.refresh();
				return context;
			}, database);
		}
	}

	/** What a native image of the application needs, and reflection finds on the JVM. */
	private static void assertHintsOfTheTools(TestGenerationContext generation) throws NoSuchMethodException {
		RuntimeHints hints = generation.getRuntimeHints();

		for (String platform : new String[] { "postgresql", "mysql", "h2" }) {
			assertThat(RuntimeHintsPredicates.resource()
				.forResource(LedgerSchema.createScriptLocation(platform).substring("classpath:".length())))
				.accepts(hints);
		}
		for (String method : new String[] { "draft", "findDraft", "send", "findSent" }) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(QuoteDesk.class, method)).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Quote.class, "total")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(Quote.class.getDeclaredConstructor(String.class, String.class, BigDecimal.class)))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(QuoteRequest.class, "deliverBy")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ToolResult.class, "data")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Answer.class, "kind")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ToolContext.class, "getContext")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(IdempotencyProperties.class)).accepts(hints);
		// Looked up by name at start-up: the configured unknown exceptions, and what finds an MCP call's user.
		assertThat(RuntimeHintsPredicates.reflection().onType(QuoteServiceTimeout.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("jakarta.servlet.http.HttpServletRequest")))
			.accepts(hints);
		assertThat(generation.getGeneratedFiles().getGeneratedFiles(Kind.CLASS).keySet())
			.anySatisfy((path) -> assertThat(path).startsWith(QuoteDesk.class.getName().replace('.', '/') + "$$SpringCGLIB$$"))
			.allSatisfy((path) -> assertThat(RuntimeHintsPredicates.reflection()
				.onType(TypeReference.of(path.substring(0, path.length() - ".class".length()).replace('/', '.'))))
				.accepts(hints));
	}

	/**
	 * Runs the tools in a new application on the database: a repeat in a run replays the first call's result,
	 * a call whose instance crashed is reconciled and then replayed, and a model's repeat in Spring AI's tool
	 * loop is told it was a replay. Returns the name of the tool's proxy
	 * class.
	 */
	private static String replaysAndReconciles(Supplier<ConfigurableApplicationContext> application,
			TestDatabase database) {
		// A server's table may be left from a run that was killed; an H2 database is new.
		LedgerSchema.drop(database(database.name()), TABLE);
		try (ConfigurableApplicationContext context = application.get()) {
			DataSource dataSource = context.getBean(DataSource.class);
			QuoteDesk desk = context.getBean(QuoteDesk.class);
			IdempotentToolRegistry tools = context.getBean(IdempotentToolRegistry.class);
			assertThat(tools.toolNames()).containsExactlyInAnyOrder("draft_quote", "send_quote");
			assertThat(tools.reconcilableToolNames()).containsExactlyInAnyOrder("draft_quote", "send_quote");

			Run run = new Run("run-1", "rep-1");
			ToolResult<Quote> first = RunContext.supply(run, () -> desk.draft(REQUEST, null));
			ToolResult<Quote> repeat = RunContext.supply(run, () -> desk.draft(REQUEST, null));
			assertThat(first.kind()).isEqualTo(Answer.EXECUTED);
			assertThat(repeat.kind()).isEqualTo(Answer.REPLAYED);
			assertThat(repeat.data()).isEqualTo(first.data()).isEqualTo(new Quote("Q-1", REQUEST.account(),
					new BigDecimal("4180.00")));
			assertThat(desk.counts()).containsExactly(1, 0, 0);

			// An instance that crashed after claiming send_quote: the reconciler asks findSent, and a repeat in
			// that run replays what it found, without sending.
			String sent = "{\"quoteId\":\"Q-1\"}";
			new JdbcLedger(dataSource, TABLE, Redaction.defaults()).claim(new ClaimRequest(
					IdempotencyKeys.derive("send_quote", sent, "run-2"), "run-2", "rep-1", "send_quote", sent));
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> jdbc.queryForObject("SELECT status FROM " + TABLE + " WHERE tool = 'send_quote'",
						String.class), "succeeded"::equals);
			Quote resent = RunContext.supply(new Run("run-2", "rep-1"), () -> desk.send("Q-1"));
			assertThat(resent).isEqualTo(new Quote("Q-1", "found by reconcile", new BigDecimal("4180.00")));
			assertThat(desk.counts()).containsExactly(1, 0, 1);

			// A model that calls draft_quote twice in one run, through Spring AI's tool loop, reads a replay.
			String arguments = "{\"request\":{\"account\":\"Acme\",\"sku\":\"SKU-7\",\"quantity\":3,"
					+ "\"deliverBy\":\"2026-12-18\"}}";
			ScriptedModel model = context.getBean(ScriptedModel.class).callsTool("draft_quote", arguments)
				.callsTool("draft_quote", arguments)
				.answers("One quote.");
			assertThat(context.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("Quote 3 of SKU-7 for Acme")
				.tools(desk)
				.toolContext(Map.of("runId", "run-3", "userId", "rep-1"))
				.call()
				.content()).isEqualTo("One quote.");
			assertThat(desk.counts()).containsExactly(2, 0, 1);
			assertThat(model.toolResponsesRead()).hasSize(2);
			assertThat(model.toolResponsesRead().get(1).responseData()).contains("\"replayed\":true")
				.contains("\"id\":\"Q-2\"");
			LedgerSchema.drop(dataSource, TABLE);
			return desk.getClass().getName();
		}
	}

	/** In AOT mode, as {@code -Dspring.aot.enabled=true} sets it: proxies load their generated classes. */
	private static <T> T inAotMode(Supplier<T> work) {
		SpringProperties.setProperty(AotDetector.AOT_ENABLED, "true");
		try {
			assertThat(AotDetector.useGeneratedArtifacts()).isTrue();
			return work.get();
		}
		finally {
			SpringProperties.setProperty(AotDetector.AOT_ENABLED, null);
		}
	}

}
