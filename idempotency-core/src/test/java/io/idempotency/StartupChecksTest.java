package io.idempotency;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.ReconcilerSettings;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;
import javax.tools.ToolProvider;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.ledger.LedgerStatus;
import io.idempotency.ledger.Redaction;
import io.idempotency.run.Run;
import io.idempotency.run.RunContext;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** A tool that would misbehave at call time stops the application from starting, with a message naming it. */
class StartupChecksTest {

	private static final DataSource dataSource = TestDatabases.dataSource(TestDatabase.H2);

	static {
		LedgerSchema.create(dataSource, "tool_audit");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools
	static class Ledger {

		@Bean
		JdbcLedger ledger() {
			return new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		}

	}

	private static AnnotationConfigApplicationContext start(Class<?>... components) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(Ledger.class);
		context.register(components);
		context.refresh();
		return context;
	}

	public static class NoReconcile {

		@IdempotentTool(name = "open_ticket")
		public String openTicket(String issue) {
			return issue;
		}

	}

	@Test
	void aToolWithoutAReconcileMethodStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(NoReconcile.class))
			.withMessageContaining("Tool 'open_ticket' (StartupChecksTest.NoReconcile.openTicket) has no reconcile method")
			.withMessageContaining("did this happen?");
	}

	public static class BadApprovals {

		@IdempotentTool(name = "both", reconcile = "find", requiresApproval = true, approval = "check")
		public String both(String issue) {
			return issue;
		}

		@IdempotentTool(name = "missing_method", reconcile = "find", approval = "noSuchMethod")
		public String missingMethod(String issue) {
			return issue;
		}

		@IdempotentTool(name = "wrong_answer", reconcile = "find", approval = "says")
		public String wrongAnswer(String issue) {
			return issue;
		}

		@IdempotentTool(name = "unknown_argument", reconcile = "find", approval = "asksAnother")
		public String unknownArgument(String issue) {
			return issue;
		}

		@IdempotentTool(name = "keyed_on_some", reconcile = "find", requiresApproval = true, keyArguments = "order")
		public String keyedOnSome(String order, String note) {
			return order + note;
		}

		@IdempotentTool(name = "fits", reconcile = "find", approval = "check")
		public String fits(String issue) {
			return issue;
		}

		boolean check(String issue, IdempotencyKey key) {
			return issue.length() > 10;
		}

		String says(String issue) {
			return issue;
		}

		Approval asksAnother(String isue) {
			return Approval.notRequired();
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void anApprovalThatIsDeclaredTwiceOrNamesAMethodThatDoesNotFitStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(BadApprovals.class))
			.withMessageContaining("Tool 'both' (StartupChecksTest.BadApprovals.both) has requiresApproval and an approval"
					+ " method 'check'")
			.withMessageContaining("Tool 'missing_method' (StartupChecksTest.BadApprovals.missingMethod) names approval"
					+ " method 'noSuchMethod', but StartupChecksTest.BadApprovals declares no method of that name")
			.withMessageContaining("Tool 'wrong_answer' (StartupChecksTest.BadApprovals.wrongAnswer) has approval method"
					+ " says which returns String: it must return boolean")
			.withMessageContaining("Tool 'unknown_argument' (StartupChecksTest.BadApprovals.unknownArgument) has approval"
					+ " method asksAnother which takes 'isue', which is not an argument of the tool")
			.withMessageContaining("Tool 'keyed_on_some' (StartupChecksTest.BadApprovals.keyedOnSome) needs approval and"
					+ " keys on some of its arguments")
			.withMessageNotContaining("'fits'");
	}

	@Configuration(proxyBeanMethods = false)
	static class FunctionKeyedOnSome {

		@Bean
		IdempotentFunction<String> refund() {
			return IdempotentFunction.builder("refund", String.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.keyArguments("order")
				.requiresApproval()
				.build();
		}

	}

	@Test
	void aFunctionThatNeedsApprovalAndKeysOnSomeOfItsArgumentsStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(FunctionKeyedOnSome.class))
			.withMessageContaining("Function 'refund' needs approval and keys on some of its arguments");
	}

	@Test
	void aFunctionsApprovalIsDeclaredOnce() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> IdempotentFunction.builder("refund", String.class)
				.reconcile((key, arguments) -> Reconciliation.notFound())
				.requiresApproval()
				.approval((arguments) -> Approval.notRequired())
				.build())
			.withMessageContaining("Function 'refund' has requiresApproval() and an approval rule");
	}

	public static class BadWaits {

		@IdempotentTool(name = "not_a_duration", reconcile = "find", waitForRunning = "two seconds")
		public String notADuration(String issue) {
			return issue;
		}

		@IdempotentTool(name = "waits_in_a_transaction", transactional = true, waitForRunning = "2s")
		public String waitsInATransaction(String issue) {
			return issue;
		}

		@IdempotentTool(name = "iso_wait", reconcile = "find", waitForRunning = "PT1.5S")
		public String isoWait(String issue) {
			return issue;
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void aWaitForRunningCallsThatIsNoDurationOrIsOnATransactionalToolStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(BadWaits.class))
			.withMessageContaining("Tool 'not_a_duration' (StartupChecksTest.BadWaits.notADuration) has waitForRunning"
					+ " \"two seconds\", which is not a duration")
			.withMessageContaining("Tool 'waits_in_a_transaction' (StartupChecksTest.BadWaits.waitsInATransaction) is"
					+ " transactional and has waitForRunning")
			.withMessageNotContaining("iso_wait");
	}

	public static class BadKeys {

		public record Ticket(String account, String issue) {
		}

		@IdempotentTool(name = "unknown_key", reconcile = "find", keyArguments = { "account", "isue" })
		public String unknownKey(String account, String issue) {
			return issue;
		}

		@IdempotentTool(name = "both_keys", reconcile = "find", keyArguments = "account", keyExcludes = "issue")
		public String bothKeys(String account, String issue) {
			return issue;
		}

		@IdempotentTool(name = "unknown_member", reconcile = "find", keyExcludes = "ticket.descripton")
		public String unknownMember(Ticket ticket) {
			return ticket.issue();
		}

		@IdempotentTool(name = "empty_segment", reconcile = "find", keyArguments = "ticket..issue")
		public String emptySegment(Ticket ticket) {
			return ticket.issue();
		}

		@IdempotentTool(name = "good_keys", reconcile = "find", keyArguments = { "ticket.account", "ticket.issue" })
		public String goodKeys(Ticket ticket, String note) {
			return ticket.issue();
		}

		public record Address(String city) {
		}

		public record Order(String account, java.util.Map<String, String> attributes, Address shipTo) {
		}

		@IdempotentTool(name = "into_a_map", reconcile = "find", keyArguments = { "order.attributes.color",
				"order.shipTo.city" })
		public String intoAMap(Order order, String note) {
			return note;
		}

		@IdempotentTool(name = "member_elsewhere", reconcile = "find", keyArguments = "order.city")
		public String memberElsewhere(Order order, String note) {
			return note;
		}

		@IdempotentTool(name = "excludes_everything", reconcile = "find", keyExcludes = { "account", "issue" })
		public String excludesEverything(String account, String issue) {
			return issue;
		}

		@IdempotentTool(name = "refuses_nothing", reconcile = "find", onDifferentDetails = DifferentDetails.REFUSE)
		public String refusesNothing(String account, String issue) {
			return issue;
		}

		Reconciliation<String> find(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void keyArgumentsThatNameNoArgumentOrBothWaysOfChoosingStopTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(BadKeys.class))
			.withMessageContaining("Tool 'unknown_key' (StartupChecksTest.BadKeys.unknownKey) has keyArguments 'isue', but"
					+ " 'isue' is not one of its parameters [account, issue]")
			.withMessageContaining("Tool 'both_keys' (StartupChecksTest.BadKeys.bothKeys) has keyArguments and keyExcludes")
			.withMessageContaining("Tool 'unknown_member' (StartupChecksTest.BadKeys.unknownMember) has keyExcludes"
					+ " 'ticket.descripton', but its arguments have no member 'descripton'")
			.withMessageContaining("Tool 'empty_segment' (StartupChecksTest.BadKeys.emptySegment) has keyArguments names"
					+ " 'ticket..issue', which has an empty segment")
			.withMessageContaining("Tool 'member_elsewhere' (StartupChecksTest.BadKeys.memberElsewhere) has keyArguments"
					+ " 'order.city', but its arguments have no member 'city' there")
			.withMessageContaining("Tool 'excludes_everything' (StartupChecksTest.BadKeys.excludesEverything) has"
					+ " keyExcludes naming every parameter")
			.withMessageContaining("Tool 'refuses_nothing' (StartupChecksTest.BadKeys.refusesNothing) has"
					+ " onDifferentDetails but neither keyArguments nor keyExcludes")
			.withMessageNotContaining("good_keys")
			.withMessageNotContaining("into_a_map");
	}

	public static class BadReconcile {

		@IdempotentTool(name = "wrong_result", reconcile = "findWrong")
		public String wrongResult(String issue) {
			return issue;
		}

		Reconciliation<Integer> findWrong(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		@IdempotentTool(name = "unknown_parameter", reconcile = "findUnknown")
		public String unknownParameter(String issue) {
			return issue;
		}

		Reconciliation<String> findUnknown(String account) {
			return Reconciliation.notFound();
		}

		@IdempotentTool(name = "sensitive_parameter", reconcile = "findSensitive", sensitive = "password")
		public String sensitiveParameter(String user, String password) {
			return user;
		}

		Reconciliation<String> findSensitive(String password) {
			return Reconciliation.notFound();
		}

		@IdempotentTool(name = "missing_method", reconcile = "nowhere")
		public String missingMethod(String issue) {
			return issue;
		}

		@IdempotentTool(name = "not_a_reconciliation", reconcile = "findPlain")
		public String notAReconciliation(String issue) {
			return issue;
		}

		String findPlain(IdempotencyKey key) {
			return null;
		}

		@IdempotentTool(name = "context_parameter", reconcile = "findByContext")
		public String contextParameter(String issue, org.springframework.ai.chat.model.ToolContext toolContext) {
			return issue;
		}

		Reconciliation<String> findByContext(String issue, org.springframework.ai.chat.model.ToolContext toolContext) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void reconcileMethodsThatDoNotFitStopTheStartAndEachIsNamed() {
		assertThatIllegalStateException().isThrownBy(() -> start(BadReconcile.class))
			.withMessageContaining("Tool 'wrong_result'")
			.withMessageContaining("returns io.idempotency.Reconciliation<java.lang.Integer>, but the tool's result is java.lang.String")
			.withMessageContaining("Tool 'unknown_parameter'")
			.withMessageContaining("takes 'account', which is not a parameter of the tool")
			.withMessageContaining("Tool 'sensitive_parameter'")
			.withMessageContaining("takes 'password', which is sensitive")
			.withMessageContaining("Tool 'missing_method'")
			.withMessageContaining("declares no method of that name")
			.withMessageContaining("Tool 'not_a_reconciliation'")
			.withMessageContaining("it must return Reconciliation<java.lang.String>")
			.withMessageContaining("Tool 'context_parameter'")
			.withMessageContaining("findByContext which takes 'toolContext' (ToolContext), the context of a call, which is"
					+ " never stored, so the method could not be given it. It may take the call's IdempotencyKey and any"
					+ " of [issue]");
	}

	public static class Asynchronous {

		@IdempotentTool(name = "send_later", transactional = true)
		public CompletableFuture<String> sendLater(String text) {
			return CompletableFuture.completedFuture(text);
		}

	}

	public static class ReconcilesByARedactedName {

		@IdempotentTool(name = "rotate_key", reconcile = "findRotation")
		public String rotateKey(String account, String apiKey) {
			return account;
		}

		Reconciliation<String> findRotation(String apiKey) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void aReconcileParameterThatTheLedgerRedactsStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(ReconcilesByARedactedName.class))
			.withMessageContaining("Tool 'rotate_key'")
			.withMessageContaining("takes 'apiKey', a name the ledger redacts");
	}

	public static class ReconcilesByNamesThatMerelyContainASecretWord {

		@IdempotentTool(name = "book_meeting", reconcile = "findMeeting")
		public String bookMeeting(String secretaryName, int maxTokens, String preAuthorizationId) {
			return secretaryName;
		}

		Reconciliation<String> findMeeting(String secretaryName, int maxTokens, String preAuthorizationId) {
			return Reconciliation.notFound();
		}

	}

	public static class ReconcilesByARecordWithARedactedMember {

		public record Issue(String project, String issueKey) {
		}

		@IdempotentTool(name = "transition_issue", reconcile = "findTransition")
		public String transitionIssue(Issue issue, String status) {
			return status;
		}

		Reconciliation<String> findTransition(Issue issue) {
			return Reconciliation.notFound();
		}

	}

	@Test
	void aReconcileParameterWithAMemberThatTheLedgerRedactsStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(ReconcilesByARecordWithARedactedMember.class))
			.withMessageContaining("Tool 'transition_issue'")
			.withMessageContaining("takes 'issue', whose members [issueKey] the ledger redacts")
			.withMessageContaining("idempotency.redaction.likely-credentials");
	}

	@Test
	void namesThatMerelyContainASecretWordAreNotRedactedSoTheyMayBeReconciledBy() {
		try (AnnotationConfigApplicationContext context = start(ReconcilesByNamesThatMerelyContainASecretWord.class)) {
			assertThat(context.getBean(IdempotentToolRegistry.class).toolNames()).contains("book_meeting");
		}
	}

	@org.springframework.context.annotation.Lazy
	@org.springframework.stereotype.Component
	public static class LazyTools {

		static final java.util.concurrent.atomic.AtomicInteger created = new java.util.concurrent.atomic.AtomicInteger();

		public LazyTools() {
			created.incrementAndGet();
		}

		@IdempotentTool(name = "lazy_ticket", reconcile = "findLazy")
		public String lazyTicket(String issue) {
			return issue;
		}

		Reconciliation<String> findLazy(IdempotencyKey key) {
			return Reconciliation.found("T-1");
		}

	}

	@Test
	void aToolOnALazyBeanIsKnownAtStartWithoutCreatingItAndIsReconciled() {
		int before = LazyTools.created.get();
		try (AnnotationConfigApplicationContext context = start(LazyTools.class)) {
			IdempotentToolRegistry registry = context.getBean(IdempotentToolRegistry.class);
			assertThat(registry.reconcilableToolNames()).contains("lazy_ticket");
			assertThat(LazyTools.created.get()).isEqualTo(before);

			JdbcLedger ledger = context.getBean(JdbcLedger.class);
			IdempotencyKey key = io.idempotency.key.IdempotencyKeys.derive("lazy_ticket", "{\"issue\":\"x\"}", "lazy-run");
			ledger.claim(new io.idempotency.ledger.ClaimRequest(key, "lazy-run", null, "lazy_ticket", "{\"issue\":\"x\"}"));
			Reconciler reconciler = new Reconciler(ledger, registry, new tools.jackson.databind.json.JsonMapper(),
					new ReconcilerSettings(java.time.Duration.ofMillis(1), java.util.Map.of(), 100,
							java.time.Duration.ofMinutes(5), java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(1), 3));

			org.awaitility.Awaitility.await().until(reconciler::reconcile, (pass) -> pass.succeeded() > 0);
			assertThat(ledger.find(key).orElseThrow().status()).isEqualTo(io.idempotency.ledger.LedgerStatus.SUCCEEDED);
		}
	}

	@Test
	void anAsynchronousResultStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(Asynchronous.class))
			.withMessageContaining("Tool 'send_later'")
			.withMessageContaining("asynchronous results are not supported");
	}

	public static class LaterResults {

		@IdempotentTool(name = "publish_later", transactional = true)
		public java.util.concurrent.Flow.Publisher<String> publishLater(String text) {
			return (subscriber) -> subscriber.onComplete();
		}

		@IdempotentTool(name = "submit_publisher", transactional = true)
		public java.util.concurrent.SubmissionPublisher<String> submitPublisher(String text) {
			return new java.util.concurrent.SubmissionPublisher<>();
		}

		@IdempotentTool(name = "stream_quotes", transactional = true)
		public java.util.stream.Stream<String> streamQuotes(String text) {
			return java.util.stream.Stream.of(text);
		}

		@IdempotentTool(name = "stream_counts", transactional = true)
		public java.util.stream.IntStream streamCounts(String text) {
			return java.util.stream.IntStream.of(1);
		}

	}

	@Test
	void aResultThatIsProducedLaterStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(LaterResults.class))
			.withMessageContaining("Tool 'publish_later'")
			.withMessageContaining("Tool 'submit_publisher'")
			.withMessageContaining("asynchronous results are not supported")
			.withMessageContaining("Tool 'stream_quotes'")
			.withMessageContaining("Tool 'stream_counts'")
			.withMessageContaining("lazy results are not supported");
	}

	public static class FinalMethod {

		@IdempotentTool(name = "final_tool", transactional = true)
		public final String finalTool(String text) {
			return text;
		}

	}

	@Test
	void aMethodAProxyCannotInterceptStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(FinalMethod.class))
			.withMessageContaining("Tool 'final_tool'")
			.withMessageContaining("is final: a proxy cannot intercept it");
	}

	public static class BadNames {

		@IdempotentTool(name = "draft\nreconcile.resolved", transactional = true)
		public String controlCharacter(String text) {
			return text;
		}

		@IdempotentTool(name = "draft_quote_with_a_name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on"
				+ "_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on"
				+ "_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on", transactional = true)
		public String tooLong(String text) {
			return text;
		}

	}

	@Test
	void aToolNameTheLedgerWouldRefuseStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(BadNames.class))
			.withMessageContaining("has a name holding the control character U+000A at index 5, which the ledger refuses")
			.withMessageContaining("has a name of 281 characters; the ledger stores at most 255");
	}

	public static class SameNames {

		@IdempotentTool(name = "draft", transactional = true)
		public String one(String text) {
			return text;
		}

		@IdempotentTool(name = "draft", transactional = true)
		public String two(String text) {
			return text;
		}

	}

	@Test
	void twoToolsOfOneNameStopTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(SameNames.class))
			.withMessageContaining("are both named 'draft'");
	}

	@Test
	void aTransactionalToolWithoutATransactionManagerStopsTheStart() {
		assertThatIllegalStateException().isThrownBy(() -> start(FinalMethod.class))
			.withMessageContaining("is transactional, but no single transaction manager of the ledger's DataSource was found");
	}

	public interface Tickets {

		String openTicket(String issue);

	}

	public static class InterfaceTools implements Tickets {

		@Override
		@IdempotentTool(name = "open_ticket", transactional = true)
		public String openTicket(String issue) {
			return issue;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableIdempotentTools(proxyTargetClass = false)
	static class InterfaceProxies {

		@Bean
		JdbcLedger ledger() {
			return new JdbcLedger(dataSource, "tool_audit", Redaction.defaults());
		}

		@Bean
		InterfaceTools interfaceTools() {
			return new InterfaceTools();
		}

	}

	@Test
	void aToolBeanProxiedByInterfaceStopsTheStartWithAdvice() {
		assertThatIllegalStateException().isThrownBy(() -> new AnnotationConfigApplicationContext(InterfaceProxies.class))
			.withMessageContaining("is proxied by interface (a JDK proxy)")
			.withMessageContaining("spring.aop.proxy-target-class=true");
	}

	@Test
	void aToolCompiledWithoutParameterNamesStopsTheStart(@TempDir Path dir) throws Exception {
		Path source = dir.resolve("NamelessTools.java");
		Files.writeString(source, """
				public class NamelessTools {
					@io.idempotency.IdempotentTool(name = "nameless", transactional = true)
					public String act(String text) {
						return text;
					}
				}
				""");
		int status = ToolProvider.getSystemJavaCompiler()
			.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", dir.toString(), source.toString());
		assertThat(status).isZero();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { dir.toUri().toURL() }, getClass().getClassLoader())) {
			Class<?> nameless = loader.loadClass("NamelessTools");
			AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
			context.register(Ledger.class);
			// Lazy: the check works from the type alone, without making a proxy of a class from another loader.
			context.registerBean("namelessTools", nameless, (definition) -> definition.setLazyInit(true));
			assertThatIllegalStateException().isThrownBy(context::refresh)
				.withMessageContaining("Tool 'nameless'")
				.withMessageContaining("compile with -parameters");
		}
	}

	public static class RetriedTool {

		private final AtomicInteger attempts = new AtomicInteger();

		@Retryable(includes = IOException.class, maxRetries = 2, delay = 1, jitter = 0)
		@IdempotentTool(name = "flaky_send", reconcile = "findSent")
		public String flakySend(String text) throws IOException {
			if (this.attempts.incrementAndGet() < 3) {
				throw new IOException("connection reset");
			}
			return "sent " + text;
		}

		Reconciliation<String> findSent(IdempotencyKey key) {
			return Reconciliation.notFound();
		}

		public int attempts() {
			return this.attempts.get();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableResilientMethods
	static class Resilience {

	}

	@Test
	void retriesHappenWithinOneClaim() throws Exception {
		try (AnnotationConfigApplicationContext context = start(Resilience.class, RetriedTool.class)) {
			RetriedTool tool = context.getBean(RetriedTool.class);
			JdbcLedger ledger = context.getBean(JdbcLedger.class);

			String result = RunContext.call(new Run("retry-run", null), () -> tool.flakySend("quote"));

			assertThat(result).isEqualTo("sent quote");
			assertThat(tool.attempts()).isEqualTo(3);
			IdempotencyKey key = io.idempotency.key.IdempotencyKeys.derive("flaky_send", "{\"text\":\"quote\"}",
					"retry-run");
			assertThat(ledger.find(key).orElseThrow().status()).isEqualTo(LedgerStatus.SUCCEEDED);
		}
	}

}
