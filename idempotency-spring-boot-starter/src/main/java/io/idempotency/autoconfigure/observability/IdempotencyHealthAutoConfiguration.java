package io.idempotency.autoconfigure.observability;

import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import java.util.Set;
import java.util.function.Supplier;

import io.idempotency.advice.IdempotentToolRegistry;
import io.idempotency.ledger.JdbcLedger;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Settlements;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.OperationFilter;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The health indicator, the {@code idempotency} Actuator endpoint, the {@code idempotencycalls} endpoint of
 * the settlements and the {@code idempotencyapprovals} endpoint of the approvals, each where Boot's classes are
 * present.
 */
@AutoConfiguration(after = IdempotencyReconcilerAutoConfiguration.class)
@ConditionalOnBean(JdbcLedger.class)
public class IdempotencyHealthAutoConfiguration {

	/** The application's transactional tools, once it has started; none without a registry. */
	static Supplier<Set<String>> transactionalTools(ObjectProvider<IdempotentToolRegistry> tools) {
		return () -> {
			IdempotentToolRegistry registry = tools.getIfAvailable();
			return (registry != null) ? registry.transactionalToolNames() : Set.of();
		};
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("idempotency")
	static class Health {

		@Bean
		@ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
		IdempotencyHealthIndicator idempotencyHealthIndicator(JdbcLedger ledger, IdempotencyProperties properties,
				ObjectProvider<IdempotentToolRegistry> tools) {
			HealthSettings health = HealthSettings.of(properties);
			return new IdempotencyHealthIndicator(ledger, health.window(), health.minimumCalls(),
					health.humanAfterAttempts(), health.cacheFor(), transactionalTools(tools), health.staleAfter(),
					health.timeout());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
	static class Endpoint {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyAnswerCounts idempotencyAnswerCounts() {
			return new IdempotencyAnswerCounts();
		}

		@Bean
		@ConditionalOnMissingBean
		IdempotencyEndpoint idempotencyEndpoint(JdbcLedger ledger, IdempotencyProperties properties,
				ObjectProvider<IdempotentToolRegistry> tools, IdempotencyAnswerCounts answers) {
			HealthSettings health = HealthSettings.of(properties);
			return new IdempotencyEndpoint(ledger, health.window(), health.humanAfterAttempts(), transactionalTools(tools),
					health.staleAfter(), health.timeout(), answers::byKind);
		}

		/**
		 * Over HTTP, a ledger that does not answer within the timeout is 503, not a server error; unless the
		 * application extends the endpoint over the web itself (an endpoint takes one extension).
		 */
		@Bean
		@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension")
		@Conditional(NoOtherWebExtension.class)
		IdempotencyEndpointWebExtension idempotencyEndpointWebExtension(IdempotencyEndpoint endpoint) {
			return new IdempotencyEndpointWebExtension(endpoint);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint")
	@ConditionalOnBean(Settlements.class)
	@ConditionalOnAvailableEndpoint(IdempotencyCallsEndpoint.class)
	static class Calls {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyCallsEndpoint idempotencyCallsEndpoint(Settlements settlements, Environment environment) {
			return new IdempotencyCallsEndpoint(settlements, IdempotencyCallsAccess.settlementAccess(environment));
		}

		/** Settling only with the endpoint's own access setting, never through an application-wide one. */
		@Bean
		OperationFilter<WebOperation> idempotencyCallsAccess(Environment environment) {
			return new IdempotencyCallsAccess(environment);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint")
	@ConditionalOnBean(Approvals.class)
	@ConditionalOnAvailableEndpoint(IdempotencyApprovalsEndpoint.class)
	static class ApprovalDecisions {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyApprovalsEndpoint idempotencyApprovalsEndpoint(Approvals approvals, Environment environment) {
			return new IdempotencyApprovalsEndpoint(approvals,
					IdempotencyCallsAccess.writeAccess(IdempotencyCallsAccess.APPROVALS, environment));
		}

		/** Deciding only with the endpoint's own access setting, never through an application-wide one. */
		@Bean
		OperationFilter<WebOperation> idempotencyApprovalsAccess(Environment environment) {
			return new IdempotencyCallsAccess(IdempotencyCallsAccess.APPROVALS, environment);
		}

	}

	/** No bean of the application's extends {@link IdempotencyEndpoint} over the web. */
	static final class NoOtherWebExtension implements ConfigurationCondition {

		@Override
		public ConfigurationPhase getConfigurationPhase() {
			return ConfigurationPhase.REGISTER_BEAN;
		}

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			ConfigurableListableBeanFactory beans = context.getBeanFactory();
			if (beans == null) {
				return true;
			}
			for (String name : beans.getBeanNamesForAnnotation(EndpointWebExtension.class)) {
				EndpointWebExtension extension = beans.findAnnotationOnBean(name, EndpointWebExtension.class, false);
				if (extension != null && extension.endpoint() == IdempotencyEndpoint.class) {
					return false;
				}
			}
			return true;
		}

	}

}
