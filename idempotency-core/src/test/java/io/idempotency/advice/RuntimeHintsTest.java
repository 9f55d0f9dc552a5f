package io.idempotency.advice;

import java.io.IOException;
import java.math.BigDecimal;
import java.util.List;

import io.idempotency.Answer;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.ToolResult;
import io.idempotency.key.IdempotencyKey;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.RestClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the library and of an application's tools, as Spring AOT finds them through
 * {@code META-INF/spring/aot.factories}: what a native image needs that reflection finds on the JVM.
 */
class RuntimeHintsTest {

	public record Order(String account, int quantity) {
	}

	public record Receipt(String id, BigDecimal total) {
	}

	public record Ledger(List<String> lines) {
	}

	public static class OrderTool {

		@IdempotentTool(name = "place_order", reconcile = "findReceipt", approval = "needsReview")
		public ToolResult<Receipt> placeOrder(Order order, ToolContext context) {
			return ToolResult.of(new Receipt("R-1", BigDecimal.TEN));
		}

		boolean needsReview(Order order) {
			return false;
		}

		Reconciliation<Receipt> findReceipt(IdempotencyKey key, Order order) {
			return Reconciliation.notFound();
		}

		public String notATool(Ledger ledger) {
			return "";
		}

	}

	/** A tool declared on a generic superclass: its result type is the bean class's. */
	public abstract static class Desk<T> {

		@IdempotentTool(name = "file_ledger", reconcile = "findLedger")
		public T file(String account) {
			return null;
		}

	}

	public static class LedgerDesk extends Desk<Ledger> {

		Reconciliation<Ledger> findLedger(String account) {
			return Reconciliation.notFound();
		}

	}

	private static RuntimeHints hintsOf(Class<?> beanClass, int role) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		RootBeanDefinition definition = new RootBeanDefinition(beanClass);
		definition.setRole(role);
		beanFactory.registerBeanDefinition("bean", definition);
		TestGenerationContext generation = new TestGenerationContext();
		for (BeanRegistrationAotProcessor processor : AotServices.factories().load(BeanRegistrationAotProcessor.class)) {
			if (processor instanceof IdempotentToolsAotProcessor) {
				BeanRegistrationAotContribution contribution = processor
					.processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
				if (contribution != null) {
					contribution.applyTo(generation, null);
				}
			}
		}
		return generation.getRuntimeHints();
	}

	@Test
	void aToolBeansToolReconcileAndApprovalMethodsAreInvokedAndItsArgumentsAndResultsBound() throws Exception {
		RuntimeHints hints = hintsOf(OrderTool.class, BeanDefinition.ROLE_APPLICATION);

		assertThat(RuntimeHintsPredicates.reflection().onType(OrderTool.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderTool.class, "placeOrder")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderTool.class, "findReceipt")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderTool.class, "needsReview")).accepts(hints);
		// Written for the key, and read back for the reconcile method: accessors and the canonical constructor.
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "account")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(Order.class.getDeclaredConstructor(String.class, int.class))).accepts(hints);
		// Stored, and read back for a replay, inside its ToolResult.
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Receipt.class, "total")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(Receipt.class.getDeclaredConstructor(String.class, BigDecimal.class))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ToolResult.class, "data")).accepts(hints);
		// Context is not an argument, and a method that is not a tool is not the library's business.
		assertThat(RuntimeHintsPredicates.reflection().onType(ToolContext.class)).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Ledger.class)).rejects(hints);
	}

	@Test
	void aToolOfAGenericSuperclassIsBoundToTheResultTypeOfTheBeanClass() {
		RuntimeHints hints = hintsOf(LedgerDesk.class, BeanDefinition.ROLE_APPLICATION);

		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Desk.class, "file")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LedgerDesk.class, "findLedger")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Ledger.class, "lines")).accepts(hints);
	}

	@Test
	void beansWithoutToolsAndInfrastructureBeansAddNoHints() {
		assertThat(hintsOf(Receipt.class, BeanDefinition.ROLE_APPLICATION).reflection().typeHints()).isEmpty();
		assertThat(hintsOf(OrderTool.class, BeanDefinition.ROLE_INFRASTRUCTURE).reflection().typeHints()).isEmpty();
	}

	@Test
	void theLibrarysOwnHintsCoverItsSchemaScriptsAnswersAndWhatItReadsByName() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		List<RuntimeHintsRegistrar> registrars = AotServices.factories().load(RuntimeHintsRegistrar.class).asList();
		assertThat(registrars).hasAtLeastOneElementOfType(AdviceRuntimeHints.class)
			.anySatisfy((registrar) -> assertThat(registrar.getClass().getName())
				.isEqualTo("io.idempotency.ledger.LedgerRuntimeHints"));
		registrars.forEach((registrar) -> registrar.registerHints(hints, getClass().getClassLoader()));

		Resource[] scripts = new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/idempotency/ledger/*.sql");
		assertThat(scripts).hasSizeGreaterThanOrEqualTo(6);
		for (Resource script : scripts) {
			assertThat(RuntimeHintsPredicates.resource().forResource("io/idempotency/ledger/" + script.getFilename()))
				.accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ToolResult.class, "kind")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Answer.class, "kind")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ToolContext.class, "getContext")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RestClientResponseException.class,
				"getStatusCode")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(HttpStatus.class, "value")).accepts(hints);
	}

}
