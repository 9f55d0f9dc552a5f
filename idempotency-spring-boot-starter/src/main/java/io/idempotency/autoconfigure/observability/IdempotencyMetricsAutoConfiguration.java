package io.idempotency.autoconfigure.observability;

import io.idempotency.autoconfigure.IdempotencyProperties;
import io.idempotency.reconcile.Approvals;
import io.idempotency.reconcile.Reconciler;
import io.idempotency.reconcile.Settlements;
import io.idempotency.autoconfigure.IdempotencyReconcilerAutoConfiguration;
import io.idempotency.ledger.JdbcLedger;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters of the ledger and the reconciler, bound to Spring Boot's meter registries. Each call's
 * timer comes from its observation, through the meter handler Boot registers.
 */
@AutoConfiguration(after = IdempotencyReconcilerAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ JdbcLedger.class, MeterRegistry.class })
public class IdempotencyMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyMetrics idempotencyMetrics(JdbcLedger ledger, ObjectProvider<Reconciler> reconciler,
			IdempotencyProperties properties, ObjectProvider<Settlements> settlements,
			ObjectProvider<Approvals> approvals) {
		HealthSettings health = HealthSettings.of(properties);
		return new IdempotencyMetrics(ledger, reconciler, health.humanAfterAttempts(), health.cacheFor(),
				health.timeout(), settlements, approvals);
	}

}
