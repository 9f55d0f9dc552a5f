package io.idempotency.autoconfigure;

import io.idempotency.IdempotentCallListener;
import io.idempotency.IdempotentCalls;
import io.idempotency.advice.IdempotentToolAdvisor;
import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.run.RunSource;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The advice of {@code @IdempotentTool} methods and the registry that checks them at start-up. Proxies are
 * made by Spring Boot's AOP auto-configuration (by class, as Spring AI needs). Present whether or not there
 * is a ledger: idempotent tools without one stop the start, never run silently undeduplicated.
 */
@AutoConfiguration(after = IdempotencyLedgerAutoConfiguration.class,
		afterName = { "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
				"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
				"org.springframework.boot.autoconfigure.aop.AopAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
public class IdempotentToolsAutoConfiguration {

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static IdempotentToolAdvisor idempotentToolAdvisor(Environment environment, BeanFactory beanFactory,
			ObjectProvider<CallLedger> ledger,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<RunSource> runSources,
			ObjectProvider<PlatformTransactionManager> transactionManager,
			ObjectProvider<IdempotentCallListener> listeners, ObjectProvider<ObservationRegistry> observations,
			ObjectProvider<IdempotentCallObservationConvention> observationConvention) {
		// Bound from the environment: an advisor is created early, before configuration properties beans.
		IdempotencyProperties properties = IdempotencyProperties.bind(environment);
		String named = properties.getTransactionManager();
		IdempotentToolAdvisor advisor = new IdempotentToolAdvisor(ledger::getObject,
				() -> jsonMapper.getIfAvailable(JsonMapper::new), () -> runSources.orderedStream().toList(),
				() -> (named != null && !named.isBlank()) ? namedTransactionManager(beanFactory, named)
						: (ledger.getObject() instanceof JdbcLedger jdbc)
								? IdempotentToolAdvisor.transactionManagerOf(jdbc, transactionManager) : null);
		advisor.setOrder(properties.getAdvisorOrder());
		advisor.setMissingRunPolicy(properties.getMissingRun());
		advisor.setMaxArgumentsBytes(properties.maxArgumentsBytes());
		advisor.setMaxResultBytes(properties.maxResultBytes());
		advisor.setToolContextKeys(properties.getToolContext().getRunIdKey(), properties.getToolContext().getUserIdKey());
		advisor.addUnknownExceptions(properties.unknownExceptionsOrEmpty());
		advisor.setListeners(() -> listeners.orderedStream().toList());
		advisor.setObservationRegistry(observations::getIfUnique);
		advisor.setObservationConvention(observationConvention::getIfUnique);
		return advisor;
	}

	private static PlatformTransactionManager namedTransactionManager(BeanFactory beanFactory, String name) {
		try {
			return beanFactory.getBean(name, PlatformTransactionManager.class);
		}
		catch (BeansException ex) {
			throw new IllegalStateException("idempotency.transaction-manager names '" + name + "', which is not a"
					+ " transaction manager bean of this application: " + ex.getMessage(), ex);
		}
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static IdempotentToolRegistry idempotentToolRegistry(IdempotentToolAdvisor idempotentToolAdvisor) {
		return new IdempotentToolRegistry(idempotentToolAdvisor);
	}

	@Bean
	@ConditionalOnMissingBean
	static IdempotentCalls idempotentCalls(IdempotentToolRegistry idempotentToolRegistry) {
		return idempotentToolRegistry.calls();
	}

}
