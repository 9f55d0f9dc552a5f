package io.idempotency.autoconfigure.observability;

import io.idempotency.Reconciler;
import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.ledger.JdbcLedger;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Metrics, the health indicator and the Actuator endpoint, each where its classes and beans are present. */
@AutoConfiguration(after = IdempotencyReconcilerAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBean(JdbcLedger.class)
public class IdempotencyObservabilityAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class Metrics {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyMetrics idempotencyMetrics(MeterRegistry registry, JdbcLedger ledger,
				ObjectProvider<Reconciler> reconciler) {
			return new IdempotencyMetrics(registry, ledger, reconciler);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("idempotency")
	static class Health {

		@Bean
		@ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
		IdempotencyHealthIndicator idempotencyHealthIndicator(JdbcLedger ledger, IdempotencyProperties properties) {
			IdempotencyProperties.Health health = properties.getHealth();
			return new IdempotencyHealthIndicator(ledger, health.getWindow(), health.getMinimumCalls(),
					properties.getReconciler().getMaxAttempts(), health.getCacheFor());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
	static class Endpoint {

		@Bean
		@ConditionalOnMissingBean
		IdempotencyEndpoint idempotencyEndpoint(JdbcLedger ledger, IdempotencyProperties properties) {
			return new IdempotencyEndpoint(ledger, properties.getHealth().getWindow(),
					properties.getReconciler().getMaxAttempts());
		}

	}

}
