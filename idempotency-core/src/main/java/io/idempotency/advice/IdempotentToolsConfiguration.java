package io.idempotency.advice;

import io.idempotency.IdempotentCallListener;
import io.idempotency.IdempotentCalls;
import io.idempotency.ledger.CallLedger;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.run.RunSource;
import io.idempotency.observation.IdempotentCallObservationConvention;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/** The advisor and the start-up check of {@link EnableIdempotentTools}. */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
class IdempotentToolsConfiguration {

	static final String ADVISOR = "idempotentToolAdvisor";

	@Bean(name = ADVISOR)
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentToolAdvisor idempotentToolAdvisor(ObjectProvider<CallLedger> ledger,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<RunSource> runSources,
			ObjectProvider<PlatformTransactionManager> transactionManager,
			ObjectProvider<IdempotentCallListener> listeners, ObjectProvider<ObservationRegistry> observations,
			ObjectProvider<IdempotentCallObservationConvention> observationConvention) {
		IdempotentToolAdvisor advisor = new IdempotentToolAdvisor(ledger::getObject,
				() -> jsonMapper.getIfAvailable(JsonMapper::new), () -> runSources.orderedStream().toList(),
				() -> (ledger.getObject() instanceof JdbcLedger jdbc)
						? IdempotentToolAdvisor.transactionManagerOf(jdbc, transactionManager) : null);
		advisor.setListeners(() -> listeners.orderedStream().toList());
		advisor.setObservationRegistry(observations::getIfUnique);
		advisor.setObservationConvention(observationConvention::getIfUnique);
		return advisor;
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentToolRegistry idempotentToolRegistry(IdempotentToolAdvisor idempotentToolAdvisor) {
		return new IdempotentToolRegistry(idempotentToolAdvisor);
	}

	@Bean
	static IdempotentCalls idempotentCalls(IdempotentToolRegistry idempotentToolRegistry) {
		return idempotentToolRegistry.calls();
	}

}
